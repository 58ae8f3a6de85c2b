import json, random
random.seed(37)
SRC="/work/blind-brief/formats/gpt4__pydicom__pydicom-1458.traj"
ref=json.load(open(SRC))
SYS=ref["history"][0]["content"]; DEMO=ref["history"][1]
tmpl=ref["history"][2]["content"]; INSTR=tmpl[tmpl.find("\n\nINSTRUCTIONS:"):]
INSTR=INSTR.replace("/pydicom__pydicom","/sigtools__sigtools")
OUT="/work/tuneset-I/swe-agent-python-numpy-moving-sum-int32-overflow.traj"
ROOT="/sigtools__sigtools"
ISSUE="""moving_sum silently overflows on int32 input
**Describe the bug**
`sigtools.window.moving_sum` (and therefore `moving_mean`) wraps around when the input is `int32` and the window sums exceed 2**31-1. On Windows the default integer dtype is int32, so `np.array([...])` of ordinary counts already hits this.

```python
import numpy as np
from sigtools.window import moving_sum

x = np.full(100, 2**30, dtype=np.int32)
print(moving_sum(x, 3)[:3])
# [-1073741824 -1073741824 -1073741824]   expected [3221225472 3221225472 3221225472]
```

**Expected behaviour / constraints**
Per the API docs, integer inputs must keep an integer result dtype: moving_sum(int32) must return int64, never float (downstream code uses the result as indices). Float inputs must keep their dtype (float32 stays float32). `moving_mean` keeps returning float64.

**Comment from @hkarlsson (maintainer)**
> Careful: short inputs (len(x) < _VEC_MIN_LEN, currently 64) never reach the vectorised cumsum path. They go through the pure-Python fallback sigtools/_fallback.py::_cumsum_1d, which also accumulates in the input dtype. A fix has to cover both paths, and the hypothesis property tests in tests/test_window_props.py generate mostly short arrays.

**Environment**
sigtools 0.9.2, numpy 1.26.4, Python 3.11, Windows 11 / also reproducible on Linux with explicit int32
"""
WINDOW=['"""Sliding-window reductions over the last axis."""','from __future__ import annotations','','import numpy as np','from numpy.typing import ArrayLike, NDArray','','from sigtools._fallback import _cumsum_1d','from sigtools._validate import _validate_window','','__all__ = ["moving_sum", "moving_mean", "moving_max", "moving_min"]','','_VEC_MIN_LEN = 64','']
WINDOW+=['','def moving_sum(x: ArrayLike, window: int) -> NDArray:','    """Sum of each length-``window`` slice of ``x`` along the last axis.','','    The result has ``x.shape[-1] - window + 1`` entries on the last axis.','    Integer inputs keep an integer dtype; float inputs keep their dtype.','    """','    x = np.asarray(x)','    _validate_window(x, window)','    if x.shape[-1] < _VEC_MIN_LEN:','        return np.apply_along_axis(_cumsum_1d, -1, x, window)','    c = np.cumsum(x, axis=-1, dtype=x.dtype)','    c = np.concatenate([np.zeros(x.shape[:-1] + (1,), dtype=c.dtype), c], axis=-1)','    return c[..., window:] - c[..., :-window]','','','def moving_mean(x: ArrayLike, window: int) -> NDArray:','    """Mean of each length-``window`` slice; always float64."""','    s = moving_sum(x, window)','    return s.astype(np.float64) / window','']
for fn in ["moving_max","moving_min"]:
    WINDOW+=['','def %s(x: ArrayLike, window: int) -> NDArray:'%fn,'    """%s over each length-``window`` slice."""'%fn.split("_")[1].title(),'    x = np.asarray(x)','    _validate_window(x, window)','    view = np.lib.stride_tricks.sliding_window_view(x, window, axis=-1)','    return view.%s(axis=-1)'%fn.split("_")[1],'']
for i in range(3):
    WINDOW+=['','def _deprecated_alias_%d(*args, **kwargs):'%i,'    import warnings','    warnings.warn("use moving_sum", DeprecationWarning, stacklevel=2)','    return moving_sum(*args, **kwargs)','']
FALLBACK=['"""Pure-Python fallbacks used for short inputs and on platforms without SIMD."""','from __future__ import annotations','','import numpy as np','','','def _prefix(x):','    return np.concatenate([[0], x])','','','def _check(x, window):','    if window > len(x):','        raise ValueError("window larger than input")','','','def _running(x, window):','    for i in range(len(x) - window + 1):','        yield x[i : i + window]','','','def _cumsum_1d(x: np.ndarray, window: int) -> np.ndarray:','    """Moving sum for a 1-D array, explicit loop (no temporaries)."""','    _check(x, window)','    n = len(x)','    # NOTE: keep dtype so that float32 inputs stay float32','','    acc = np.zeros(n + 1, dtype=x.dtype)','    for i in range(n):','        acc[i + 1] = acc[i] + x[i]','    return acc[window:] - acc[:-window]','']
files={"sigtools/window.py":WINDOW,"sigtools/_fallback.py":FALLBACK}
state={"open":"n/a"}
traj=[]; hist=[{"role":"system","content":SYS,"agent":"primary"},DEMO,{"role":"user","content":"We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n"+ISSUE+INSTR,"agent":"primary"}]
def view(path,start,total=None):
    L=files[path]; total=len(L); s=max(0,start); e=min(total,s+100)
    o=["[File: %s/%s (%d lines total)]"%(ROOT,path,total)]
    if s>0:o.append("(%d more lines above)"%s)
    o+=["%d:%s"%(i+1,L[i]) for i in range(s,e)]
    if e<total:o.append("(%d more lines below)"%(total-e))
    return "\n".join(o)
def step(thought,action,obs,open_=None):
    if open_: state["open"]=open_
    resp=thought+"\n\n```\n"+action+"\n```"
    st=json.dumps({"open_file":state["open"],"working_dir":ROOT})
    traj.append({"action":action+"\n","observation":obs,"response":resp,"state":st+"\n","thought":thought+"\n\n"})
    hist.append({"role":"assistant","content":resp,"thought":thought+"\n\n","action":action+"\n","agent":"primary"})
    hist.append({"role":"user","content":obs+"\n(Open file: %s)\n(Current directory: %s)\nbash-$"%(state["open"],ROOT),"agent":"primary"})

step("Let's first look at the repository layout.","ls -F","CHANGELOG.md\nLICENSE\nREADME.md\nbenchmarks/\ndocs/\nnoxfile.py\npyproject.toml\nsigtools/\ntests/")
# flood: pip install log
pip=["Obtaining file:///sigtools__sigtools","  Installing build dependencies: started","  Installing build dependencies: finished with status 'done'","  Checking if build backend supports build_editable: started","  Checking if build backend supports build_editable: finished with status 'done'","  Getting requirements to build editable: started","  Getting requirements to build editable: finished with status 'done'","  Preparing editable metadata (pyproject.toml): started","  Preparing editable metadata (pyproject.toml): finished with status 'done'"]
pk=[("numpy","1.26.4"),("pytest","8.3.3"),("hypothesis","6.112.1"),("attrs","24.2.0"),("sortedcontainers","2.4.0"),("iniconfig","2.0.0"),("pluggy","1.5.0"),("packaging","24.1"),("pytest-cov","5.0.0"),("coverage","7.6.1"),("scipy","1.14.1"),("exceptiongroup","1.2.2"),("tomli","2.0.1"),("pytest-xdist","3.6.1"),("execnet","2.1.1"),("mypy","1.11.2"),("typing_extensions","4.12.2"),("mypy-extensions","1.0.0")]
for n,v in pk*6:
    pip.append("Requirement already satisfied: %s>=%s in /usr/local/lib/python3.11/site-packages (from sigtools==0.9.2) (%s)"%(n,v.split(".")[0],v))
    pip.append("  Using cached %s-%s-py3-none-any.whl.metadata (%d kB)"%(n,v,random.randint(2,60)))
pip+=["Building wheels for collected packages: sigtools","  Building editable for sigtools (pyproject.toml): started","  Building editable for sigtools (pyproject.toml): finished with status 'done'","  Created wheel for sigtools: filename=sigtools-0.9.2-0.editable-py3-none-any.whl size=4211 sha256=9c1f0e6ab2d44e1e3f8f2b0a7d5c1e3f1a2b3c4d5e6f708192a3b4c5d6e7f809","Successfully built sigtools","Installing collected packages: sigtools","  Attempting uninstall: sigtools","    Found existing installation: sigtools 0.9.2","    Uninstalling sigtools-0.9.2:","      Successfully uninstalled sigtools-0.9.2","Successfully installed sigtools-0.9.2","WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager."]
step("Make sure the package and the test extras are installed in editable mode.","pip install -e '.[test]'","\n".join(pip))
step("Now I'll create a script to reproduce the bug from the issue.","create reproduce.py","[File: %s/reproduce.py (1 lines total)]\n1:"%ROOT,open_=ROOT+"/reproduce.py")
REPRO='import numpy as np\nfrom sigtools.window import moving_sum\n\nx = np.full(100, 2**30, dtype=np.int32)\nr = moving_sum(x, 3)\nprint(r[:3], r.dtype)\nprint("Script completed successfully, no errors.")'
step("Paste the example from the issue, printing the dtype too.","edit 1:1\n"+REPRO+"\nend_of_edit","[File: %s/reproduce.py (7 lines total)]\n"%ROOT+"\n".join("%d:%s"%(i+1,l) for i,l in enumerate(REPRO.split("\n")))+"\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.")
step("Run it.","python reproduce.py","[-1073741824 -1073741824 -1073741824] int32\nScript completed successfully, no errors.")
step("Reproduced: the result wraps and stays int32. Let's find moving_sum.","find_file window.py","Found 2 matches for \"window.py\" in %s:\n%s/sigtools/window.py\n%s/benchmarks/window.py"%(ROOT,ROOT,ROOT))
step("Open the library module.","open sigtools/window.py",view("sigtools/window.py",0),open_=ROOT+"/sigtools/window.py")
step("`moving_sum` uses `np.cumsum(x, axis=-1, dtype=x.dtype)` on line 25, accumulating in int32. Let me see the rest of the file.","scroll_down",view("sigtools/window.py",100))
# flood: search_dir with hundreds of hits
hits=[]
tf=["tests/test_window.py","tests/test_window_props.py","tests/test_filters.py","tests/test_resample.py","benchmarks/window.py","docs/api/window.rst","docs/tutorial/rolling.rst","sigtools/filters.py","sigtools/resample.py","sigtools/stats.py","CHANGELOG.md"]
for i in range(280):
    hits.append("%s/%s (%d matches)"%(ROOT,random.choice(tf),random.randint(1,30))) if False else None
byfile={}
for i in range(280):
    f=random.choice(tf); byfile.setdefault(f,[]).append(random.randint(1,900))
out=["Found 280 matches for \"moving_\" in %s:"%ROOT]
for f,ls in byfile.items(): out.append("%s/%s (%d matches)"%(ROOT,f,len(ls)))
out.append("End of matches for \"moving_\" in %s"%ROOT)
step("Let me see where moving_* is used across the repo.","search_dir \"moving_\"","\n".join(out))
g=[]
for i in range(300):
    f=random.choice(tf); g.append("%s:%d:%s"%(f,random.randint(1,900),random.choice(["    r = moving_sum(x, w)","    assert_array_equal(moving_sum(a, 3), expected)","from sigtools.window import moving_sum, moving_mean","    m = moving_mean(sig, win).astype(np.float32)","   moving_sum(x, window)","    s = moving_sum(counts, 7)  # weekly totals","@given(arrays(np.int32, st.integers(1, 40)), st.integers(1, 5))","    idx = moving_sum(mask.astype(np.int64), k) > 0","- ``moving_sum`` now preserves integer dtypes (#118)","    benchmark(moving_sum, data, 128)"])))
step("And the actual lines, to see how callers depend on the result dtype.","grep -rn \"moving_sum\\|moving_mean\" --include=*.py --include=*.rst --include=*.md .","\n".join(g))
# reverted approach: astype float64
step("Simplest fix: accumulate in float64, which cannot overflow for realistic sizes. Edit line 25.","edit 25:25\n    c = np.cumsum(x.astype(np.float64), axis=-1)\nend_of_edit","[File: %s/sigtools/window.py (%d lines total)]\n(14 more lines above)\n"%(ROOT,len(WINDOW))+"\n".join("%d:%s"%(i+1,(WINDOW[i] if i!=24 else "    c = np.cumsum(x.astype(np.float64), axis=-1)")) for i in range(14,35))+"\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.")
step("Run the reproduction.","python reproduce.py","[3.22122547e+09 3.22122547e+09 3.22122547e+09] float64\nScript completed successfully, no errors.")
def pytest_out(fails, n=412):
    o=["============================= test session starts ==============================","platform linux -- Python 3.11.10, pytest-8.3.3, pluggy-1.5.0","rootdir: /sigtools__sigtools","configfile: pyproject.toml","plugins: hypothesis-6.112.1, cov-5.0.0, xdist-3.6.1","collected %d items"%n,""]
    mods=[("tests/test_filters.py",96),("tests/test_resample.py",88),("tests/test_stats.py",71),("tests/test_window.py",124),("tests/test_validate.py",33)]
    for m,k in mods:
        s="".join("F" if (m,i) in fails else "." for i in range(k))
        for j in range(0,k,70): o.append("%s %s"%(m if j==0 else " "*len(m),s[j:j+70]))
    return o
fail1=[("tests/test_window.py",17),("tests/test_window.py",18)]
o=pytest_out(fail1)
o+=["","=================================== FAILURES ===================================","_________________ test_moving_sum_preserves_integer_kind[int32] _________________","","dtype = <class 'numpy.int32'>","","    @pytest.mark.parametrize(\"dtype\", [np.int8, np.int16, np.int32, np.uint16])","    def test_moving_sum_preserves_integer_kind(dtype):","        x = np.arange(10, dtype=dtype)",">       assert moving_sum(x, 3).dtype.kind == x.dtype.kind","E       AssertionError: assert 'f' == 'i'","E         ","E         - i","E         + f","","tests/test_window.py:88: AssertionError","_________________ test_moving_sum_preserves_integer_kind[uint16] ________________","","tests/test_window.py:88: AssertionError","=========================== short test summary info ============================","FAILED tests/test_window.py::test_moving_sum_preserves_integer_kind[int32] - AssertionError: assert 'f' == 'i'","FAILED tests/test_window.py::test_moving_sum_preserves_integer_kind[uint16] - AssertionError: assert 'f' == 'u'","======================== 2 failed, 410 passed in 9.84s ========================="]
step("No overflow now. Run the test suite (excluding the slow property tests for now).","pytest -q -p no:cacheprovider tests --ignore=tests/test_window_props.py","\n".join(o))
step("That violates the constraint in the issue: integer inputs must keep an integer dtype (int64), not float. Revert line 25 to the original before trying again.","edit 25:25\n    c = np.cumsum(x, axis=-1, dtype=x.dtype)\nend_of_edit","[File: %s/sigtools/window.py (%d lines total)]\n(14 more lines above)\n"%(ROOT,len(WINDOW))+"\n".join("%d:%s"%(i+1,WINDOW[i]) for i in range(14,35))+"\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.")
step("Check git sees no change to window.py after the revert.","git diff --stat","")
# look at validate and other files (filler)
VAL=['"""Argument validation helpers."""','import numpy as np','','','def _validate_window(x, window):','    if not isinstance(window, (int, np.integer)):','        raise TypeError(f"window must be an int, got {type(window).__name__}")','    if window < 1:','        raise ValueError("window must be >= 1")','    if x.ndim == 0:','        raise ValueError("x must be at least 1-D")','    if window > x.shape[-1]:','        raise ValueError("window larger than input")']
files["sigtools/_validate.py"]=VAL
step("Look at `_validate_window` for dtype handling.","open sigtools/_validate.py",view("sigtools/_validate.py",0),open_=ROOT+"/sigtools/_validate.py")
TW=[]
for i in range(260):
    TW.append(random.choice(["import numpy as np","import pytest","from numpy.testing import assert_array_equal, assert_allclose","","def test_moving_sum_basic_%d():"%i,"    x = np.arange(%d)"%random.randint(5,50),"    assert_array_equal(moving_sum(x, 3), np.convolve(x, np.ones(3, int), 'valid'))","@pytest.mark.parametrize('window', [1, 2, 5, 9])","    with pytest.raises(ValueError, match='window larger'):","        moving_sum(np.arange(3), 4)","    assert moving_mean(x, 2).dtype == np.float64"]))
TW[84:90]=["@pytest.mark.parametrize(\"dtype\", [np.int8, np.int16, np.int32, np.uint16])","def test_moving_sum_preserves_integer_kind(dtype):","    x = np.arange(10, dtype=dtype)","    assert moving_sum(x, 3).dtype.kind == x.dtype.kind","","def test_moving_sum_float32_stays_float32():"]
files["tests/test_window.py"]=TW
step("Open the existing tests for moving_sum.","open tests/test_window.py",view("tests/test_window.py",0),open_=ROOT+"/tests/test_window.py")
step("Scroll to the dtype tests.","goto 85",view("tests/test_window.py",35))
step("More of the file.","scroll_down",view("tests/test_window.py",135))
step("And the remainder.","scroll_down",view("tests/test_window.py",235))
# proper fix in window.py
step("Go back to window.py and implement a dtype-aware accumulator: signed ints accumulate in int64, unsigned in uint64, floats in their own dtype.","open sigtools/window.py 20",view("sigtools/window.py",0),open_=ROOT+"/sigtools/window.py")
NEWHELP=['def _accum_dtype(dtype: np.dtype) -> np.dtype:','    """Accumulator dtype: widen integers to 64 bits, keep floats as they are."""','    if dtype.kind == "i":','        return np.dtype(np.int64)','    if dtype.kind in "ub":','        return np.dtype(np.uint64)','    return dtype','','']
W2=WINDOW[:13]+NEWHELP+WINDOW[13:]
step("Add a helper after `_VEC_MIN_LEN`.","edit 13:13\n\n"+"\n".join(NEWHELP)+"\nend_of_edit","[File: %s/sigtools/window.py (%d lines total)]\n"%(ROOT,len(W2))+"\n".join("%d:%s"%(i+1,W2[i]) for i in range(0,45))+"\n(%d more lines below)\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary."%(len(W2)-45))
ln=W2.index('    c = np.cumsum(x, axis=-1, dtype=x.dtype)')+1
W2[ln-1]='    c = np.cumsum(x, axis=-1, dtype=_accum_dtype(x.dtype))'
files["sigtools/window.py"]=W2
step("Now use the helper in the vectorised path (line %d)."%ln,"edit %d:%d\n    c = np.cumsum(x, axis=-1, dtype=_accum_dtype(x.dtype))\nend_of_edit"%(ln,ln),view("sigtools/window.py",ln-20)+"\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.")
step("Run the reproduction again.","python reproduce.py","[3221225472 3221225472 3221225472] int64\nScript completed successfully, no errors.")
o=pytest_out([])+["","======================== 412 passed in 9.61s ========================="]
step("Correct value and int64. Run the unit tests.","pytest -q -p no:cacheprovider tests --ignore=tests/test_window_props.py","\n".join(o))
step("The int32 parametrisation checks `.kind`, which stays 'i'. Also check float32 is unchanged.","python -c \"import numpy as np; from sigtools.window import moving_sum; print(moving_sum(np.ones(100, np.float32), 4).dtype, moving_sum(np.ones(100, np.uint16), 4).dtype)\"","float32 uint64")
# repeated identical runs flood
for k in range(4):
    step("Run tests/test_window.py once more to be sure it is stable%s."%(" (again)" if k else ""),"pytest -q -p no:cacheprovider tests/test_window.py","\n".join(pytest_out([],124)[6:][3:5] if False else ["."*70,"."*54,"124 passed in 0.4%ds"%k]))
# property tests: the late hint
PROPS=["import numpy as np","from hypothesis import given, settings, strategies as st","from hypothesis.extra.numpy import arrays","","from sigtools.window import moving_sum","","","def naive(x, w):","    x = x.astype(object)","    return np.array([sum(x[i:i + w]) for i in range(len(x) - w + 1)])","","","@settings(max_examples=500, deadline=None)","@given(x=arrays(np.int32, st.integers(2, 40), elements=st.integers(-2**31, 2**31 - 1)), window=st.integers(1, 2))","def test_moving_sum_matches_naive_int32(x, window):","    got = moving_sum(x, window)","    exp = naive(x, window)","    assert got.dtype == np.int64","    assert (got == exp).all(), f\"moving_sum mismatch: got {got} expected {exp}\""]
files["tests/test_window_props.py"]=PROPS
step("Now the hypothesis property tests that the maintainer mentioned.","open tests/test_window_props.py",view("tests/test_window_props.py",0),open_=ROOT+"/tests/test_window_props.py")
hyp=["============================= test session starts ==============================","platform linux -- Python 3.11.10, pytest-8.3.3, pluggy-1.5.0","rootdir: /sigtools__sigtools","configfile: pyproject.toml","plugins: hypothesis-6.112.1, cov-5.0.0, xdist-3.6.1","collected 6 items","","tests/test_window_props.py F.....                                        [100%]","","=================================== FAILURES ===================================","_____________________ test_moving_sum_matches_naive_int32 ______________________","","    @settings(max_examples=500, deadline=None)",">   @given(x=arrays(np.int32, st.integers(2, 40), elements=st.integers(-2**31, 2**31 - 1)), window=st.integers(1, 2))","","tests/test_window_props.py:14: ","_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ","","x = array([2147483647,          1], dtype=int32), window = 2","","    def test_moving_sum_matches_naive_int32(x, window):","        got = moving_sum(x, window)","        exp = naive(x, window)",">       assert got.dtype == np.int64","E       AssertionError: assert dtype('int32') == <class 'numpy.int64'>","E        +  where dtype('int32') = array([-2147483648], dtype=int32).dtype","","tests/test_window_props.py:18: AssertionError","---------------------------------- Hypothesis ----------------------------------","Falsifying example: test_moving_sum_matches_naive_int32(","    x=array([2147483647,          1], dtype=int32),","    window=2,",")"]
for i in range(160):
    hyp.append("Trying example: test_moving_sum_matches_naive_int32(x=array(%s, dtype=int32), window=%d)"%(str([random.randint(-2**31,2**31-1) for _ in range(random.randint(2,8))]),random.randint(1,2)))
hyp+=["=============================== warnings summary ===============================","tests/test_window_props.py::test_moving_sum_matches_naive_int32","  /sigtools__sigtools/sigtools/_fallback.py:29: RuntimeWarning: overflow encountered in scalar add","    acc[i + 1] = acc[i] + x[i]","","-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html","=========================== short test summary info ============================","FAILED tests/test_window_props.py::test_moving_sum_matches_naive_int32 - AssertionError: assert dtype('int32') == <class 'numpy.int64'>","========================= 1 failed, 5 passed in 14.22s ========================="]
step("Run the property tests with verbose hypothesis output.","pytest -p no:cacheprovider tests/test_window_props.py --hypothesis-verbosity=verbose","\n".join(hyp))
step("The falsifying example is a 2-element array, shorter than `_VEC_MIN_LEN`, so it goes through `np.apply_along_axis(_cumsum_1d, ...)` in the fallback, exactly as the maintainer's comment in the issue warned. The overflow warning points at sigtools/_fallback.py:29. Open it.","open sigtools/_fallback.py",view("sigtools/_fallback.py",0),open_=ROOT+"/sigtools/_fallback.py")
step("Line 27 `acc = np.zeros(n + 1, dtype=x.dtype)` accumulates in the input dtype. It should use the same widening as `_accum_dtype` in window.py; but importing window from _fallback would be circular (window imports _fallback). Check who else imports _fallback.","search_dir \"_fallback\" sigtools","Found 4 matches for \"_fallback\" in %s/sigtools:\n%s/sigtools/window.py (1 matches)\n%s/sigtools/filters.py (2 matches)\n%s/sigtools/stats.py (1 matches)\nEnd of matches for \"_fallback\" in %s/sigtools"%(ROOT,ROOT,ROOT,ROOT,ROOT))
step("filters.py and stats.py use it too. Look at how filters.py calls it, to be sure widening there won't break its float32 contract.","search_file \"_cumsum_1d\" sigtools/filters.py","Found 2 matches for \"_cumsum_1d\" in %s/sigtools/filters.py:\nLine 9:from sigtools._fallback import _cumsum_1d\nLine 141:        out = _cumsum_1d(x.astype(np.float32), width) / width\nEnd of matches for \"_cumsum_1d\" in %s/sigtools/filters.py"%(ROOT,ROOT))

# --- more exploration (filler)
def genmod(name,n):
    L=['"""%s helpers."""'%name,'from __future__ import annotations','','import numpy as np','from sigtools._fallback import _cumsum_1d','']
    i=0
    while len(L)<n:
        i+=1
        L+=['','def %s_%d(x, width=%d, axis=-1):'%(random.choice(["smooth","detrend","clip","band","scale","lag","diff","norm"]),i,random.randint(2,64)),'    x = np.asarray(x, dtype=np.result_type(x, np.float32))','    if x.shape[axis] < width:','        raise ValueError("width larger than input")','    out = np.empty_like(x)','    out[...] = x - x.mean(axis=axis, keepdims=True)','    return out']
    return L
files["sigtools/filters.py"]=genmod("Filtering",230)
files["sigtools/stats.py"]=genmod("Rolling statistics",180)
step("Before writing the fallback fix, look at filters.py to understand how it relies on the fallback.","open sigtools/filters.py",view("sigtools/filters.py",0),open_=ROOT+"/sigtools/filters.py")
step("Continue.","scroll_down",view("sigtools/filters.py",100))
step("Around line 141 where `_cumsum_1d` is used.","goto 141",view("sigtools/filters.py",91))
step("Now stats.py.","open sigtools/stats.py",view("sigtools/stats.py",0),open_=ROOT+"/sigtools/stats.py")
step("Continue.","scroll_down",view("sigtools/stats.py",100))
step("Where does stats.py call the fallback?","search_file \"_cumsum_1d\" sigtools/stats.py","Found 1 matches for \"_cumsum_1d\" in %s/sigtools/stats.py:\nLine 5:from sigtools._fallback import _cumsum_1d\nEnd of matches for \"_cumsum_1d\" in %s/sigtools/stats.py"%(ROOT,ROOT))
step("Only imported, not used, in stats.py. Check numpy's integer limits to confirm int64 headroom for a window of int32 values.","python -c \"import numpy as np; print(np.iinfo(np.int32).max, np.iinfo(np.int64).max, np.iinfo(np.int64).max // np.iinfo(np.int32).max)\"","2147483647 9223372036854775807 4294967298")
step("int64 can hold sums of ~4e9 int32 values, plenty. Check the git history of window.py for context on the dtype decision.","git log --oneline -6 -- sigtools/window.py sigtools/_fallback.py","e4a1f20 moving_sum: preserve integer dtypes (#118)\n71c0b3d Add pure-Python fallback for short inputs\n0d9e2aa Vectorise moving_sum via cumsum\n5b61c47 Add moving_max/moving_min\nc3a8e12 Initial window module")
step("Look at the change that introduced dtype preservation.","git show e4a1f20 --stat","commit e4a1f20b9d3c7e11a2f0c4d5e6b7a8c9d0e1f2a3\nAuthor: H. Karlsson <hk@sigtools.dev>\nDate:   Tue Sep 10 14:02:11 2024 +0200\n\n    moving_sum: preserve integer dtypes (#118)\n\n    Float results broke index arithmetic downstream. Integer input -> integer\n    output; widen to 64-bit if needed is fine.\n\n CHANGELOG.md             |  1 +\n sigtools/_fallback.py    |  3 ++-\n sigtools/window.py       |  2 +-\n tests/test_window.py     | 12 ++++++++++++\n 4 files changed, 16 insertions(+), 2 deletions(-)")
DOC=["Window functions","================","",".. autofunction:: sigtools.window.moving_sum",".. autofunction:: sigtools.window.moving_mean","","Dtype rules","-----------","","* integer input gives an integer result (widened to 64 bits),","* float input keeps its dtype,","* ``moving_mean`` always returns float64.",""]+["Example %d::\n\n    >>> moving_sum(np.arange(%d), 2)"%(i,i+3) for i in range(60)]
files["docs/api/window.rst"]=DOC
step("Check the docs for the documented dtype rules.","open docs/api/window.rst",view("docs/api/window.rst",0),open_=ROOT+"/docs/api/window.rst")
step("The docs match the issue's constraint. Look at the benchmarks to see what sizes hit each path.","open benchmarks/window.py",view("sigtools/stats.py",0).replace("sigtools/stats.py","benchmarks/window.py"),open_=ROOT+"/benchmarks/window.py")
for k in range(3):
    step("Run the reproduction again to confirm the vectorised path still works%s."%(" after browsing" if k==0 else ""),"python reproduce.py","[3221225472 3221225472 3221225472] int64\nScript completed successfully, no errors.")
step("Confirm a short int32 input (fallback path) still overflows, directly.","python -c \"import numpy as np; from sigtools.window import moving_sum; r = moving_sum(np.array([2**31-1, 1], dtype=np.int32), 2); print(r, r.dtype)\"","/sigtools__sigtools/sigtools/_fallback.py:29: RuntimeWarning: overflow encountered in scalar add\n  acc[i + 1] = acc[i] + x[i]\n[-2147483648] int32")
step("Confirmed: the fallback path is still broken. Check that `_validate.py` has no imports from window (so a shared helper there is safe).","search_file \"import\" sigtools/_validate.py","Found 1 matches for \"import\" in %s/sigtools/_validate.py:\nLine 2:import numpy as np\nEnd of matches for \"import\" in %s/sigtools/_validate.py"%(ROOT,ROOT))
step("Look at the sigtools package __init__ to make sure nothing re-exports `_accum_dtype`.","cat sigtools/__init__.py","\"\"\"sigtools: small signal-processing helpers on top of numpy.\"\"\"\nfrom sigtools.window import moving_max, moving_mean, moving_min, moving_sum\n\n__version__ = \"0.9.2\"\n__all__ = [\"moving_sum\", \"moving_mean\", \"moving_max\", \"moving_min\"]")
step("Run the mypy check used in CI on the package, to have a baseline before editing the fallback.","mypy sigtools","sigtools/_fallback.py:21: error: Function is missing a return type annotation  [no-untyped-def]\nsigtools/_fallback.py:7: error: Function is missing a type annotation  [no-untyped-def]\nFound 2 errors in 1 file (checked 6 source files)")
step("Those mypy errors pre-exist (not from my change). Check CI config to see if mypy is enforced.","grep -n \"mypy\\|pytest\\|hypothesis\" noxfile.py pyproject.toml","noxfile.py:12:    session.run(\"pytest\", \"-q\", \"tests\")\nnoxfile.py:18:    session.run(\"mypy\", \"sigtools\", success_codes=[0, 1])\npyproject.toml:31:test = [\"pytest>=8\", \"hypothesis>=6.100\", \"pytest-cov\"]\npyproject.toml:58:[tool.hypothesis]\npyproject.toml:59:derandomize = true")


step("List the tests directory to see if other property tests exist.","ls tests","__init__.py\nconftest.py\ntest_filters.py\ntest_resample.py\ntest_stats.py\ntest_validate.py\ntest_window.py\ntest_window_props.py")
step("Check conftest for hypothesis profiles.","cat tests/conftest.py","from hypothesis import settings\n\nsettings.register_profile(\"ci\", max_examples=1000, deadline=None)\nsettings.register_profile(\"dev\", max_examples=100)\nsettings.load_profile(\"dev\")")
for k in range(2):
    step("Re-run the property test to confirm the failure is deterministic (derandomize=true).","pytest -q -p no:cacheprovider tests/test_window_props.py","F.....                                                                   [100%%]\n=================================== FAILURES ===================================\n_____________________ test_moving_sum_matches_naive_int32 ______________________\nFalsifying example: test_moving_sum_matches_naive_int32(\n    x=array([2147483647,          1], dtype=int32),\n    window=2,\n)\nE       AssertionError: assert dtype('int32') == <class 'numpy.int64'>\ntests/test_window_props.py:18: AssertionError\nFAILED tests/test_window_props.py::test_moving_sum_matches_naive_int32 - AssertionError: assert dtype('int32') == <class 'numpy.int64'>\n1 failed, 5 passed in 3.9%ds"%k)
step("Open the fallback at the accumulator line again.","open sigtools/_fallback.py 27",view("sigtools/_fallback.py",0),open_=ROOT+"/sigtools/_fallback.py")
step("Line 27 is the one to change, and the NOTE on line 25 explains why it keeps the dtype (float32). The widened accumulator keeps float32 for floats, so the note stays valid. Check `_prefix` (line 7) is unused.","search_dir \"_prefix\" sigtools","Found 1 matches for \"_prefix\" in %s/sigtools:\n%s/sigtools/_fallback.py (1 matches)\nEnd of matches for \"_prefix\" in %s/sigtools"%(ROOT,ROOT,ROOT))

step("filters.py passes float32, so float stays float with the widening rule. Plan: move `_accum_dtype` into `sigtools/_validate.py` (no circular import), use it in both window.py and _fallback.py line 27. Run the full suite first to record the baseline with the current partial fix.","pytest -q -p no:cacheprovider tests","\n".join(pytest_out([],412)+["tests/test_window_props.py F.....","","FAILED tests/test_window_props.py::test_moving_sum_matches_naive_int32 - AssertionError: assert dtype('int32') == <class 'numpy.int64'>","=================== 1 failed, 417 passed in 24.03s ==================="]))

info={"exit_status":"submitted (exit_cost)","submission":"\ndiff --git a/sigtools/window.py b/sigtools/window.py\nindex 4c1d2e0..9a8b7f3 100644\n--- a/sigtools/window.py\n+++ b/sigtools/window.py\n@@ -11,6 +11,15 @@ __all__ = [\"moving_sum\", \"moving_mean\", \"moving_max\", \"moving_min\"]\n \n _VEC_MIN_LEN = 64\n \n+\n+def _accum_dtype(dtype: np.dtype) -> np.dtype:\n+    \"\"\"Accumulator dtype: widen integers to 64 bits, keep floats as they are.\"\"\"\n+    if dtype.kind == \"i\":\n+        return np.dtype(np.int64)\n+    if dtype.kind in \"ub\":\n+        return np.dtype(np.uint64)\n+    return dtype\n+\n \n def moving_sum(x: ArrayLike, window: int) -> NDArray:\n@@ -22,7 +31,7 @@ def moving_sum(x: ArrayLike, window: int) -> NDArray:\n     if x.shape[-1] < _VEC_MIN_LEN:\n         return np.apply_along_axis(_cumsum_1d, -1, x, window)\n-    c = np.cumsum(x, axis=-1, dtype=x.dtype)\n+    c = np.cumsum(x, axis=-1, dtype=_accum_dtype(x.dtype))\n     c = np.concatenate([np.zeros(x.shape[:-1] + (1,), dtype=c.dtype), c], axis=-1)\n     return c[..., window:] - c[..., :-window]\ndiff --git a/reproduce.py b/reproduce.py\nnew file mode 100644\nindex 0000000..5d1c2b4\n--- /dev/null\n+++ b/reproduce.py\n@@ -0,0 +1,7 @@\n+import numpy as np\n+from sigtools.window import moving_sum\n+\n+x = np.full(100, 2**30, dtype=np.int32)\n+r = moving_sum(x, 3)\n+print(r[:3], r.dtype)\n+print(\"Script completed successfully, no errors.\")\n","model_stats":{"total_cost":3.01842,"instance_cost":3.01842,"tokens_sent":291544,"tokens_received":4120,"api_calls":len(traj)}}
d={"environment":"swe_main","trajectory":traj,"history":hist,"info":info}
json.dump(d,open(OUT,"w"),indent=2)
print(OUT,len(traj))
