import json, hashlib, os
D="/work/tuneset-I"
F={
"claude-code-php-symfony-invoice-reminder-retries.jsonl":dict(format="claude-code",ecosystem="php-symfony",
 description="A Symfony invoicing app sends payment reminders twice (Messenger retries after SMTP timeouts) and even for paid invoices; PHPUnit and PHPStan level 8 are red. Floods: a 600-test PHPUnit run with deprecation noise (twice), a worker log with a stale getDueDate CRITICAL, a 260-hit grep, a composer dependency tree, a long entity read and repeated identical handler test runs. The agent fixes the paid/null checks, then dedupes via a Redis cache pool, which the user rejects and which is reverted. Late, the user allows a NEW migration (but not editing existing ones) and freezes the SendInvoiceReminder constructor; the agent adds reminderSentAt to Invoice and generates an empty migration, and the session ends before the migration SQL, the handler marker and the retry test are done.",
 facts=[("never add entries to phpstan-baseline.neon","first-message rule that is never lifted (confirmed again later)"),
 ("keep InvoiceRepository's public methods as they are","first-message rule that still holds after the change of rules"),
 ("ALTER TABLE invoice ADD exported_at TIMESTAMP(0) WITHOUT TIME ZONE DEFAULT NULL","SQL style of the latest migration to copy into the new migration (read mid-session)"),
 ("store reminderSentAt on Invoice (nullable datetime_immutable column reminder_sent_at)","the decision taken after the cache-pool approach was rejected and reverted"),
 ("you may add a new migration, but do not edit Version20261102170918.php or any other existing migration","the late constraint that replaces 'do not touch anything in migrations/'"),
 ("SendInvoiceReminder's constructor must stay (int $invoiceId)","late constraint: queued messages must still deserialize"),
 ("public function markReminderSent(\\DateTimeImmutable $at): static","entity method already added that the handler must call"),
 ("migrations/Version20261205224112.php","the generated empty migration file that must be filled in")]),
"codex-csharp-aspnetcore-shipment-eta-nullable.jsonl":dict(format="codex",ecosystem="csharp-aspnetcore",
 description="An ASP.NET Core fleet service returns 500 from GET /api/shipments/{id}/eta for shipments without a carrier. Floods: three long dotnet build logs (the first with a stale CS8618 fixed upstream by git pull), a 233-test xUnit run, a 320-hit grep for Carrier, an EF model snapshot dump and repeated identical failing test runs. The agent makes the Carrier navigation nullable, then suppresses CS8602 with NoWarn in the csproj; the user rejects any warning suppression and it is reverted. The agent finds carrier_id is NOT NULL with an UNASSIGNED placeholder; late, the user allows an EF migration named MakeShipmentCarrierOptional (reversing 'no migration') but freezes the ShipmentEtaDto JSON shape. The session ends with ~19 CS8602 errors, no migration yet, and dotnet format failing.",
 facts=[("do not touch Directory.Build.props (TreatWarningsAsErrors and Nullable=enable stay)","first-message constraint never changed"),
 ("Fleetwise.Api.Tests.Endpoints.ShipmentEtaEndpointTests.GetEta_ReturnsUnknown_WhenCarrierMissing","full name of the failing xUnit test, seen in the middle of the test flood"),
 ("Don't suppress nullable warnings anywhere, not in the csproj, not with #pragma, and no `!` null-forgiving on Carrier either","rule from rejecting the reverted NoWarn approach"),
 ("carrier ??= db.Carriers.Find(Carriers.UnassignedId);","test factory line that maps 'no carrier' to the placeholder; must change with the migration"),
 ("you may add an EF Core migration that makes shipments.carrier_id nullable","late constraint replacing 'no EF Core migration'"),
 ("the JSON shape of ShipmentEtaDto must not change","late constraint on the public contract"),
 ("Name the migration MakeShipmentCarrierOptional","exact migration name required"),
 ("src/Fleetwise.Api/Services/EtaCalculator.cs(49,1): error WHITESPACE: Fix whitespace formatting.","pending dotnet format error with its location")]),
"swe-agent-python-numpy-moving-sum-int32-overflow.traj":dict(format="swe-agent",ecosystem="python-numpy",
 description="SWE-agent run on an issue: sigtools.window.moving_sum wraps around on int32 input. The issue requires integer results to become int64 (never float) and floats to keep dtype, and quotes a maintainer comment that short inputs go through sigtools/_fallback.py::_cumsum_1d. Floods: a pip install log, a 280-match search and 300-line grep, 400-test pytest runs, a verbose hypothesis log, long file views and repeated identical runs. The agent first casts to float64, which breaks test_moving_sum_preserves_integer_kind and is reverted; then adds _accum_dtype and fixes the vectorised path. Late, the hypothesis test fails on a 2-element array through the fallback (the hint in the issue), and the run ends (cost limit) before _fallback.py line 27 is fixed.",
 facts=[("moving_sum(int32) must return int64, never float","constraint stated in the issue"),
 ("Float inputs must keep their dtype (float32 stays float32)","second constraint in the issue, limits the widening"),
 ("sigtools/_fallback.py::_cumsum_1d, which also accumulates in the input dtype","the maintainer hint quoted in the issue that matters late"),
 ("FAILED tests/test_window_props.py::test_moving_sum_matches_naive_int32","the still-failing property test"),
 ("sigtools/_fallback.py:29: RuntimeWarning: overflow encountered in scalar add","error location of the remaining overflow, inside the hypothesis flood"),
 ("acc = np.zeros(n + 1, dtype=x.dtype)","the line (27) still to change"),
 ("def _accum_dtype(dtype: np.dtype) -> np.dtype:","helper added after the reverted float64 approach, to reuse"),
 ("move `_accum_dtype` into `sigtools/_validate.py` (no circular import)","the plan for sharing the helper with the fallback")])}
def strings(o):
    if isinstance(o,str): yield o
    elif isinstance(o,dict):
        for v in o.values(): yield from strings(v)
    elif isinstance(o,list):
        for v in o: yield from strings(v)
ok=True
for fn,m in F.items():
    p=os.path.join(D,fn)
    if fn.endswith(".traj"): objs=[json.load(open(p))]
    else: objs=[json.loads(l) for l in open(p)]
    S=[s for o in objs for s in strings(o)]
    for fact,_ in m["facts"]:
        n=sum(1 for s in S if fact in s)
        good=n>0 and 20<=len(fact)<=160 and fact==fact.strip() and "\n" not in fact
        if not good: ok=False
        print("OK " if good else "BAD",n,len(fact),fact[:70])
    out={"transcript":fn,"format":m["format"],"ecosystem":m["ecosystem"],"description":m["description"],"requiredFacts":[f for f,_ in m["facts"]],"why":[w for _,w in m["facts"]]}
    json.dump(out,open(p.rsplit(".",1)[0]+".facts.json","w"),indent=2,ensure_ascii=False)
print("ALL OK" if ok else "PROBLEMS")
