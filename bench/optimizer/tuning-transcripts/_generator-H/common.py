import json, random, hashlib
R = random.Random(4242)
def rhex(n): return ''.join(R.choice('0123456789abcdef') for _ in range(n))
def est_tokens(s): return len(s)//4
# abstract events: ('user',text) ('think',text) ('text',text) ('tool',kind,input,output,is_error)
def count_content(events):
    n=0
    for e in events:
        n += 2 if e[0]=='tool' else 1
    return n
