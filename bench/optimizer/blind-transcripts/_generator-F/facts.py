#!/usr/bin/env python3
"""Write <name>.facts.json for each transcript and verify every fact against the decoded strings."""
import json, os, sys
OUT = "/work/blindset-F"


def strings(o, acc):
    if isinstance(o, str):
        acc.append(o)
    elif isinstance(o, dict):
        for k, v in o.items():
            strings(v, acc)
    elif isinstance(o, list):
        for v in o:
            strings(v, acc)
    return acc


def load(name):
    p = os.path.join(OUT, name)
    if name.endswith(".traj"):
        return strings(json.load(open(p)), [])
    acc = []
    for i, line in enumerate(open(p)):
        strings(json.loads(line), acc)
    return acc


SETS = [
    {
        "transcript": "claude-code-go-orders-keyset-pagination-race.jsonl", "format": "claude-code", "ecosystem": "go",
        "description": "A Go gRPC order service (orderd) with a pgx/Postgres repository layer: CI is red because TestOrderRepo_ListByCustomer_PageBoundary repeats orders across pages and go test -race finds a DATA RACE in the per-customer page cache. Floods: a ~1,500-line verbose go test -race log, a grep with hundreds of context.Context hits, a full go mod graph, a repo-wide golangci-lint run with hundreds of legacy findings, and three identical race reproductions. The agent first switches to LIMIT/OFFSET paging; the user rejects it (40M rows) and it is reverted with git checkout in favour of keyset pagination on (created_at, id). Late, the user relaxes the early 'no new migrations' rule (one new 0007 migration is allowed, existing ones untouched) and adds that the Repository interface signatures must not change. The session ends with the race, the migration and the lint issue still open.",
        "requiredFacts": [
            "Do not change anything under api/orders/v1 — the protobuf contract is frozen",
            "golangci-lint must be clean on the files you touch",
            "you may add one new migration (0007) for the index, but do not edit any existing migration files",
            "the Repository interface in internal/repo/repo.go must keep its current signatures",
            "Decision: keep keyset pagination on (created_at, id)",
            "/home/dev/orderd/internal/repo/pgstore/cache.go:57 +0x1a4",
            "internal/repo/pgstore/orders.go:106:2: ineffectual assignment to err (ineffassign)",
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_customer_created_id_idx ON orders (customer_id, created_at DESC, id DESC);",
        ],
        "why": [
            "Early constraint that is never lifted: the proto/API must not be touched.",
            "Early constraint defining the lint gate (only touched files), still in force.",
            "The late rule that replaces the early 'no new migrations' rule; it decides how the index is added.",
            "Late constraint: the fix for the race/pagination must not change OrderRepository signatures.",
            "The decision after the rejected and reverted OFFSET attempt; the resumer must not retry OFFSET paging.",
            "Location of the racing write (customerCache.put) that still has to be fixed.",
            "The one lint finding in a touched file that must be fixed for the lint gate.",
            "The exact index the new 0007 migration must create, as proposed after the constraint change.",
        ],
    },
    {
        "transcript": "codex-kotlin-android-room-migration-5-6.jsonl", "format": "codex", "ecosystem": "kotlin-android",
        "description": "An Android app (fieldnotes) with Room: the instrumented MigrationTest fails after the DB 4->5 change (tags table, pinned notes) and a unit test fails on tag splitting. Floods: a ~1,500-line gradle --info connectedDebugAndroidTest log, the full debugRuntimeClasspath dependency tree, a grep with ~260 'labels' hits, a detekt report with hundreds of baselined findings, and repeated identical test runs. The agent tries Room AutoMigration, the user rejects it and it is reverted; the hand-written migration is fixed in place and passes. Late, the user reveals v5 already shipped to beta testers: MIGRATION_4_5 must be restored exactly as on main and a new version 6 with MIGRATION_5_6 must repair the schema (replacing the early 'keep the DB at version 5' rule). The session ends with MIGRATION_5_6 half-written, detekt failing on it, and the unit-test fix not applied.",
        "requiredFacts": [
            "Never use fallbackToDestructiveMigration",
            "leave MIGRATION_4_5 exactly as it is on main (undo your edits to it)",
            "bump the database to version 6 and add a MIGRATION_5_6 that repairs the schema for those testers",
            "Decision: keep the hand-written Migration and backfill note_tags from the labels column in SQL",
            "CREATE INDEX IF NOT EXISTS `index_note_tags_noteId` ON `${TABLE_NAME}` (`noteId`)",
            "com.example.fieldnotes.data.NoteRepositoryTest > observeTagged_returnsNotesForTag FAILED",
            "note.labels.split(\",\").map { it.trim() }.filter { it.isNotEmpty() }",
            "Migrations.kt:57:1: Line detected, which is longer than the defined maximum line length in the code base. [MaxLineLength]",
        ],
        "why": [
            "Early constraint that stays in force for the new MIGRATION_5_6.",
            "Late rule that supersedes the in-place 4->5 fix; MIGRATION_4_5 must match main.",
            "Late rule that replaces 'keep the DB at version 5'; defines the target of the remaining work.",
            "Decision taken after the rejected, reverted AutoMigration attempt.",
            "The index statement Room expects (from 5.json) that MIGRATION_5_6 must create.",
            "The failing unit test that still has to pass before the task is done.",
            "The code change for NoteRepository.save line 35 that fixes that unit test.",
            "One of the two new detekt findings in MIGRATION_5_6 that must be fixed without touching the baseline.",
        ],
    },
    {
        "transcript": "swe-agent-haskell-toml-lite-roundtrip-escapes.traj", "format": "swe-agent", "ecosystem": "haskell-cabal",
        "description": "A SWE-agent run on toml-lite, a megaparsec-based TOML parser/renderer built with cabal, where the hspec/QuickCheck property prop_renderParseRoundTrip fails on control characters. The issue forbids new build-depends, requires the parser to stay strict, and quotes a maintainer comment saying control characters must be \\uXXXX with four uppercase hex digits and that keys are strings too. Floods: a long cabal build log of dependency compiles, full hspec runs with hundreds of examples, a cabal freeze dependency list, a grep with ~340 fixture hits, 100-line views of the parser, and three identical seeded property runs. The agent first relaxes the parser (breaking 'rejects raw control characters in basic strings') and reverts it, tries printf (compile error), then fixes escapeChar; the property then fails on a key, which the quoted hint predicted. The run hits the cost limit before renderKey and its RenderSpec expectation are fixed; the autosubmitted diff only has the escapeChar fix.",
        "requiredFacts": [
            "Please don't add any new build-depends to toml-lite.cabal",
            "the parser must stay strict about TOML 1.0: raw control characters inside basic strings are an error",
            "written as \\uXXXX with exactly four uppercase hex digits",
            "Also check every place that renders a string, not just values — keys can be quoted strings too",
            "T.justifyRight 4 '0' (T.toUpper (T.pack (showHex (ord c) \"\")))",
            "fromList [(\"\\DEL\",VInt 0)]",
            "renderKey k = if not (T.null k) && T.all isBareKeyChar k then k else T.pack (show k)",
            "test/Toml/Lite/RenderSpec.hs:44:    renderKey \"caf\\233\"",
        ],
        "why": [
            "Constraint stated in the issue: the fix may only use base/text/containers/megaparsec.",
            "Constraint in the issue that rules out the reverted 'lenient parser' approach.",
            "The hint quoted in the issue defining the required escape format.",
            "The second half of the hint that turns out to matter late: keys must be escaped the same way.",
            "The escapeChar fix already applied (in the submission) that the finished patch must keep.",
            "The remaining QuickCheck counterexample after the escapeChar fix: a control character in a key.",
            "The line in src/Toml/Lite/Render.hs (line 55) that still has to change to use renderString.",
            "The test expectation that pins the old show-based key rendering and must be updated with the fix.",
        ],
    },
]

ok = True
for st in SETS:
    strs = load(st["transcript"])
    assert len(st["requiredFacts"]) == len(st["why"])
    for f in st["requiredFacts"]:
        hits = [s for s in strs if f in s]
        good = bool(hits) and 20 <= len(f) <= 160 and f == f.strip() and "\n" not in f
        print(("OK  " if good else "BAD ") + "%3d hits len=%3d  %s" % (len(hits), len(f), f))
        ok &= good
    name = st["transcript"].rsplit(".", 1)[0] + ".facts.json"
    with open(os.path.join(OUT, name), "w") as fh:
        json.dump(st, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
print("ALL OK" if ok else "FAILURES")
sys.exit(0 if ok else 1)
