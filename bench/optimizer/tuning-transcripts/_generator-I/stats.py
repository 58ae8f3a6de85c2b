import json,sys
def strings(o):
    if isinstance(o,str): yield o
    elif isinstance(o,dict):
        for v in o.values(): yield from strings(v)
    elif isinstance(o,list):
        for v in o: yield from strings(v)
f=sys.argv[1]
if f.endswith('.traj'):
    d=json.load(open(f)); tot=sum(len(s) for s in strings(d['trajectory']))+sum(len(s) for s in strings(d['history'][:3]))
    ev=len(d['trajectory'])*2+1
    print(f,'steps',len(d['trajectory']),'content-events',ev,'traj+prompt tokens',tot//4,'history tokens',sum(len(s) for s in strings(d['history']))//4,'file tokens',len(open(f).read())//4)
else:
    L=[json.loads(l) for l in open(f)]
    if 'claude' in f:
        ev=[d for d in L if d.get('type') in('user','assistant')]
        tot=sum(len(s) for d in ev for s in strings(d['message']['content']))
    else:
        ev=[d for d in L if d['type']=='response_item' and d['payload']['type'] in('message','reasoning','function_call','function_call_output','custom_tool_call','custom_tool_call_output')]
        tot=sum(len(s) for d in ev for s in strings(d['payload']))
    print(f,'lines',len(L),'content-events',len(ev),'content tokens',tot//4,'file tokens',len(open(f).read())//4)
