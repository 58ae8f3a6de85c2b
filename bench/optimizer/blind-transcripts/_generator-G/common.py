import json, random, hashlib

def rng(seed):
    return random.Random(seed)

def est_tokens(s):
    return len(s) // 4

def strings_of(obj, out):
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            strings_of(v, out)
    elif isinstance(obj, list):
        for v in obj:
            strings_of(v, out)
    return out

def check_facts(docs, facts):
    """docs: list of decoded JSON objects. Each fact must be inside one string value (also
    inside JSON-encoded strings nested one level, e.g. codex arguments/output, are decoded)."""
    strs = []
    for d in docs:
        strings_of(d, strs)
    # also decode nested JSON strings (codex function_call arguments/output)
    extra = []
    for s in strs:
        if s[:1] in '{[':
            try:
                extra.extend(strings_of(json.loads(s), []))
            except Exception:
                pass
    allstr = strs + extra
    res = []
    for f in facts:
        assert 20 <= len(f) <= 160, (len(f), f)
        assert f == f.strip() and '\n' not in f, f
        hits = sum(1 for s in strs if f in s)
        hits2 = sum(1 for s in allstr if f in s)
        res.append((f, hits, hits2))
    return res

def sha(b):
    return hashlib.sha256(b).hexdigest()
