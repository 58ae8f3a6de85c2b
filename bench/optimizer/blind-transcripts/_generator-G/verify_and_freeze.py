import json, os, hashlib, sys
D = '/work/blindset-G'
def strings(o, out):
    if isinstance(o, str): out.append(o)
    elif isinstance(o, dict): [strings(v, out) for v in o.values()]
    elif isinstance(o, list): [strings(v, out) for v in o]
    return out
frozen = []
ok = True
for fn in sorted(os.listdir(D)):
    if not fn.endswith('.facts.json'): continue
    meta = json.load(open(os.path.join(D, fn)))
    t = meta['transcript']; path = os.path.join(D, t)
    raw = open(path, encoding='utf-8').read()
    if t.endswith('.jsonl'):
        docs = [json.loads(l) for l in raw.splitlines() if l.strip()]
        events = sum(1 for d in docs if d.get('type') in ('user', 'assistant') or (d.get('type') in ('response_item', 'event_msg') and d['payload'].get('type') not in ('token_count', 'ghost_snapshot')))
    else:
        docs = [json.loads(raw)]
        events = len(docs[0]['history'])
    strs = strings(docs, [])
    assert 6 <= len(meta['requiredFacts']) <= 8 and len(meta['why']) == len(meta['requiredFacts'])
    for i, f in enumerate(meta['requiredFacts'], 1):
        good = 20 <= len(f) <= 160 and f == f.strip() and '\n' not in f and any(f in s for s in strs)
        ok &= good
        print(('OK  ' if good else 'BAD ') + '%s fact %d (%d chars)' % (t, i, len(f)))
    print('%s: events=%d bytes=%d tokens~%d' % (t, events, len(raw.encode()), len(raw) // 4))
    frozen.append('sha256(%s) = %s' % (t, hashlib.sha256(open(path, 'rb').read()).hexdigest()))
    frozen.append('sha256(%s) = %s' % (fn, hashlib.sha256(open(os.path.join(D, fn), 'rb').read()).hexdigest()))
    for i, f in enumerate(meta['requiredFacts'], 1):
        frozen.append('%s fact %d = %s' % (t, i, hashlib.sha256(f.encode('utf-8')).hexdigest()))
if not ok:
    sys.exit('facts failed')
if len(sys.argv) > 1 and sys.argv[1] == 'freeze':
    open(os.path.join(D, 'FROZEN-G.txt'), 'w').write('\n'.join(frozen) + '\n')
    print('frozen')
