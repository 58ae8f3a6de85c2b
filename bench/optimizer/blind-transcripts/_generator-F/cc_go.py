#!/usr/bin/env python3
"""Generate a Claude Code session JSONL: Go gRPC service, Postgres repo layer, go test -race, golangci-lint."""
import json, random, uuid, datetime, os, sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "/work/blindset-F"
NAME = "claude-code-go-orders-keyset-pagination-race.jsonl"
rng = random.Random(4242)
CWD = "/home/dev/orderd"
SID = "3b8f2e71-9c4d-4a16-b0e5-6f21d8c7a934"
MOD = "github.com/northwind-labs/orderd"
t0 = datetime.datetime(2026, 11, 18, 13, 2, 11)
lines = []
state = {"parent": None, "t": t0, "n": 0}


def ts():
    state["t"] += datetime.timedelta(seconds=rng.randint(3, 40), milliseconds=rng.randint(0, 999))
    return state["t"].strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (state["t"].microsecond // 1000)


def uid():
    state["n"] += 1
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def base(typ):
    u = uid()
    d = {"parentUuid": state["parent"], "isSidechain": False, "userType": "external", "cwd": CWD,
         "sessionId": SID, "version": "1.0.112", "gitBranch": "fix/orders-page-boundary", "type": typ,
         "uuid": u, "timestamp": ts()}
    state["parent"] = u
    return d


def user(text):
    d = base("user")
    d["message"] = {"role": "user", "content": text}
    lines.append(d)


def asst(blocks):
    d = base("assistant")
    d["message"] = {"id": "msg_01%020d" % state["n"], "type": "message", "role": "assistant",
                    "model": "claude-sonnet-4-5-20250929", "content": blocks, "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": rng.randint(3, 9), "cache_creation_input_tokens": rng.randint(200, 4000),
                              "cache_read_input_tokens": rng.randint(15000, 90000), "output_tokens": rng.randint(40, 900),
                              "service_tier": "standard"}}
    d["requestId"] = "req_011C%016x" % rng.getrandbits(64)
    lines.append(d)


def say(text):
    asst([{"type": "text", "text": text}])


def think(text):
    asst([{"type": "thinking", "thinking": text, "signature": "Eq" + "%x" % rng.getrandbits(96)}])


def tool(name, inp, content, is_error=False, tur=None):
    tid = "toolu_01" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789") for _ in range(22))
    asst([{"type": "tool_use", "id": tid, "name": name, "input": inp}])
    d = base("user")
    block = {"tool_use_id": tid, "type": "tool_result", "content": content}
    if is_error:
        block["is_error"] = True
    d["message"] = {"role": "user", "content": [block]}
    d["toolUseResult"] = tur if tur is not None else content
    lines.append(d)


def bash(cmd, out, err="", code=0, desc=None):
    inp = {"command": cmd}
    if desc:
        inp["description"] = desc
    if code != 0:
        content = "Error: Exit code %d\n%s" % (code, (out + ("\n" + err if err else "")).rstrip("\n"))
        tool("Bash", inp, content, True, content)
    else:
        tool("Bash", inp, out.rstrip("\n"), False, {"stdout": out.rstrip("\n"), "stderr": err, "interrupted": False, "isImage": False})


def read(path, text, start=1):
    ls = text.split("\n")
    numbered = "\n".join("%6d\u2192%s" % (i + start, l) for i, l in enumerate(ls))
    tool("Read", {"file_path": path}, numbered, False,
         {"type": "text", "file": {"filePath": path, "content": text, "numLines": len(ls), "startLine": start, "totalLines": len(ls) + start - 1}})


def edit(path, old, new, original, snippet_line=1):
    content = "The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" % path
    content += "\n".join("%6d\u2192%s" % (snippet_line + i, l) for i, l in enumerate(new.split("\n")))
    patch_lines = ["-" + l for l in old.split("\n")] + ["+" + l for l in new.split("\n")]
    tur = {"filePath": path, "oldString": old, "newString": new, "originalFile": original,
           "structuredPatch": [{"oldStart": snippet_line, "oldLines": len(old.split("\n")), "newStart": snippet_line,
                                "newLines": len(new.split("\n")), "lines": patch_lines}],
           "userModified": False, "replaceAll": False}
    tool("Edit", {"file_path": path, "old_string": old, "new_string": new}, content, False, tur)


def grep(pattern, path, out, glob=None):
    inp = {"pattern": pattern, "path": path, "output_mode": "content", "-n": True}
    if glob:
        inp["glob"] = glob
    n = out.count("\n") + 1
    tool("Grep", inp, out, False, {"mode": "content", "numFiles": len(set(l.split(":")[0] for l in out.split("\n"))), "filenames": [], "content": out, "numLines": n})


def meta(obj):
    lines.append(obj)


# ---------------------------------------------------------------- content builders
PKGS = ["cmd/orderd", "internal/app", "internal/auth", "internal/billing", "internal/billing/invoice", "internal/config",
        "internal/events", "internal/events/outbox", "internal/grpcserver", "internal/grpcserver/interceptors",
        "internal/health", "internal/metrics", "internal/repo", "internal/repo/pgstore", "internal/repo/pgstore/sqlgen",
        "internal/service/orders", "internal/service/payments", "internal/service/shipping", "internal/telemetry",
        "pkg/money", "pkg/pagetoken", "pkg/retry", "pkg/clock", "pkg/idgen"]
TESTS = {}
for p in PKGS:
    base_name = p.split("/")[-1].capitalize()
    TESTS[p] = ["Test%s_%s" % (base_name, s) for s in rng.sample(
        ["New", "Validate", "Defaults", "RoundTrip", "Encode", "Decode", "Concurrent", "Timeout", "Retry", "Backoff",
         "EmptyInput", "NilContext", "Unauthorized", "Forbidden", "NotFound", "Conflict", "Idempotent", "Close",
         "Shutdown", "Metrics", "Labels", "Parse", "Format", "Compare", "Add", "Sub", "Split", "Merge", "Flush", "Replay"], 12)]


def race_block(n):
    g1, g2 = rng.randint(80, 140), rng.randint(141, 220)
    return f"""==================
WARNING: DATA RACE
Write at 0x00c0003a{n:04x} by goroutine {g1}:
  runtime.mapassign_faststr()
      /usr/local/go/src/runtime/map_faststr.go:223 +0x0
  {MOD}/internal/repo/pgstore.(*customerCache).put()
      /home/dev/orderd/internal/repo/pgstore/cache.go:57 +0x1a4
  {MOD}/internal/repo/pgstore.(*OrderStore).ListByCustomer()
      /home/dev/orderd/internal/repo/pgstore/orders.go:113 +0x5c8
  {MOD}/internal/repo/pgstore.TestOrderRepo_ListByCustomer_Concurrent.func1()
      /home/dev/orderd/internal/repo/pgstore/orders_test.go:301 +0xd0

Previous read at 0x00c0003a{n:04x} by goroutine {g2}:
  runtime.mapaccess2_faststr()
      /usr/local/go/src/runtime/map_faststr.go:117 +0x0
  {MOD}/internal/repo/pgstore.(*customerCache).get()
      /home/dev/orderd/internal/repo/pgstore/cache.go:41 +0x84
  {MOD}/internal/repo/pgstore.(*OrderStore).ListByCustomer()
      /home/dev/orderd/internal/repo/pgstore/orders.go:74 +0x1f0
  {MOD}/internal/repo/pgstore.TestOrderRepo_ListByCustomer_Concurrent.func1()
      /home/dev/orderd/internal/repo/pgstore/orders_test.go:301 +0xd0

Goroutine {g1} (running) created at:
  {MOD}/internal/repo/pgstore.TestOrderRepo_ListByCustomer_Concurrent()
      /home/dev/orderd/internal/repo/pgstore/orders_test.go:298 +0x2bc
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:1792 +0x225

Goroutine {g2} (finished) created at:
  {MOD}/internal/repo/pgstore.TestOrderRepo_ListByCustomer_Concurrent()
      /home/dev/orderd/internal/repo/pgstore/orders_test.go:298 +0x2bc
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:1792 +0x225
=================="""


def verbose_pkg(p, fail_block=None):
    out = []
    for t in TESTS[p]:
        out.append("=== RUN   " + t)
        for sub in range(rng.randint(0, 3)):
            out.append("=== RUN   %s/case_%02d" % (t, sub))
        if rng.random() < 0.3:
            out.append("    %s_test.go:%d: using fixture testdata/%s_%02d.json" % (p.split("/")[-1], rng.randint(20, 400), t.lower(), rng.randint(1, 9)))
        out.append("--- PASS: %s (%.2fs)" % (t, rng.random() * 0.3))
        for sub in range(rng.randint(0, 3)):
            out.append("    --- PASS: %s/case_%02d (0.00s)" % (t, sub))
    if fail_block:
        out.extend(fail_block)
        out.append("FAIL")
        out.append("FAIL\t%s/%s\t%.3fs" % (MOD, p, 2 + rng.random() * 5))
    else:
        out.append("PASS")
        out.append("ok  \t%s/%s\t%.3fs" % (MOD, p, rng.random() * 3))
    return out


def pgstore_fail_block(page_msg, with_race=True):
    b = []
    pg_tests = ["TestOrderRepo_Create", "TestOrderRepo_Get_NotFound", "TestOrderRepo_UpdateStatus",
                "TestOrderRepo_ListByCustomer_FirstPage", "TestOrderRepo_ListByCustomer_Empty"]
    for t in pg_tests:
        b += ["=== RUN   " + t, "--- PASS: %s (%.2fs)" % (t, 0.02 + rng.random() * 0.2)]
    b += ["=== RUN   TestOrderRepo_ListByCustomer_PageBoundary"]
    b += page_msg
    b += ["--- FAIL: TestOrderRepo_ListByCustomer_PageBoundary (0.41s)"]
    b += ["=== RUN   TestOrderRepo_ListByCustomer_Concurrent"]
    if with_race:
        b += race_block(rng.randint(0, 65535)).split("\n")
        b += ["    testing.go:1490: race detected during execution of test",
              "--- FAIL: TestOrderRepo_ListByCustomer_Concurrent (0.88s)"]
    else:
        b += ["--- PASS: TestOrderRepo_ListByCustomer_Concurrent (0.71s)"]
    return b


def full_test_log(page_msg, with_race=True, pad=1.0):
    out = ["go: downloading github.com/jackc/pgx/v5 v5.7.1", "go: downloading google.golang.org/grpc v1.67.1"] if pad > 1 else []
    for p in PKGS:
        if p == "internal/repo/pgstore":
            out += verbose_pkg(p, pgstore_fail_block(page_msg, with_race))
        elif p in ("cmd/orderd", "internal/repo/pgstore/sqlgen"):
            out.append("?   \t%s/%s\t[no test files]" % (MOD, p))
        else:
            for _ in range(int(pad)):
                out += verbose_pkg(p)
    out.append("FAIL")
    return "\n".join(out)


ORDERS_GO_HEAD = '''package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/northwind-labs/orderd/internal/repo"
	"github.com/northwind-labs/orderd/pkg/pagetoken"
)

// OrderStore implements repo.OrderRepository on top of Postgres.
type OrderStore struct {
	pool  *pgxpool.Pool
	cache *customerCache
	now   func() time.Time
}

// NewOrderStore returns an OrderStore backed by pool.
func NewOrderStore(pool *pgxpool.Pool) *OrderStore {
	return &OrderStore{pool: pool, cache: newCustomerCache(5 * time.Minute), now: time.Now}
}

const orderColumns = `id, customer_id, status, currency, total_minor, created_at, updated_at`

func scanOrder(row pgx.Row) (repo.Order, error) {
	var o repo.Order
	err := row.Scan(&o.ID, &o.CustomerID, &o.Status, &o.Currency, &o.TotalMinor, &o.CreatedAt, &o.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return repo.Order{}, repo.ErrNotFound
	}
	return o, err
}

// Create inserts a new order.
func (s *OrderStore) Create(ctx context.Context, o repo.Order) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO orders (`+orderColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
		o.ID, o.CustomerID, o.Status, o.Currency, o.TotalMinor, o.CreatedAt, o.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert order %s: %w", o.ID, err)
	}
	s.cache.invalidate(o.CustomerID)
	return nil
}

// Get returns a single order by id.
func (s *OrderStore) Get(ctx context.Context, id string) (repo.Order, error) {
	return scanOrder(s.pool.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE id = $1`, id))
}

// UpdateStatus moves an order to a new status.
func (s *OrderStore) UpdateStatus(ctx context.Context, id string, st repo.Status) error {
	tag, err := s.pool.Exec(ctx, `UPDATE orders SET status = $2, updated_at = $3 WHERE id = $1`, id, st, s.now())
	if err != nil {
		return fmt.Errorf("update order %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return repo.ErrNotFound
	}
	return nil
}

// ListByCustomer returns one page of a customer's orders, newest first.
func (s *OrderStore) ListByCustomer(ctx context.Context, customerID string, pageSize int, token string) ([]repo.Order, string, error) {
	if pageSize <= 0 || pageSize > 100 {
		pageSize = 20
	}
	cacheKey := customerID + "|" + token
	if hit, ok := s.cache.get(cacheKey); ok {
		return hit.orders, hit.next, nil
	}
'''

ORDERS_GO_LIST_OLD = '''	var rows pgx.Rows
	var err error
	if token == "" {
		rows, err = s.pool.Query(ctx, `SELECT `+orderColumns+` FROM orders
			WHERE customer_id = $1
			ORDER BY created_at DESC
			LIMIT $2`, customerID, pageSize+1)
	} else {
		cur, derr := pagetoken.Decode(token)
		if derr != nil {
			return nil, "", fmt.Errorf("%w: %v", repo.ErrBadPageToken, derr)
		}
		rows, err = s.pool.Query(ctx, `SELECT `+orderColumns+` FROM orders
			WHERE customer_id = $1 AND created_at < $2
			ORDER BY created_at DESC
			LIMIT $3`, customerID, cur.CreatedAt, pageSize+1)
	}'''

ORDERS_GO_TAIL = '''
	if err != nil {
		return nil, "", fmt.Errorf("list orders for %s: %w", customerID, err)
	}
	defer rows.Close()
	out := make([]repo.Order, 0, pageSize+1)
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			return nil, "", err
		}
		out = append(out, o)
	}
	err = rows.Err()
	next := ""
	if len(out) > pageSize {
		last := out[pageSize-1]
		out = out[:pageSize]
		next = pagetoken.Encode(pagetoken.Cursor{CreatedAt: last.CreatedAt})
	}
	s.cache.put(cacheKey, cachedPage{orders: out, next: next})
	return out, next, nil
}

// CountByStatus returns how many orders are in each status.
func (s *OrderStore) CountByStatus(ctx context.Context) (map[repo.Status]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT status, count(*) FROM orders GROUP BY status`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := map[repo.Status]int64{}
	for rows.Next() {
		var st repo.Status
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		res[st] = n
	}
	return res, rows.Err()
}
'''

CACHE_GO = '''package pgstore

import (
	"strings"
	"time"

	"github.com/northwind-labs/orderd/internal/repo"
)

type cachedPage struct {
	orders  []repo.Order
	next    string
	expires time.Time
}

// customerCache keeps recently listed pages per customer.
// It is shared by every request handled by an OrderStore.
type customerCache struct {
	ttl   time.Duration
	pages map[string]cachedPage
	// byCustomer maps a customer id to the cache keys that belong to it.
	byCustomer map[string][]string
	now        func() time.Time
}

func newCustomerCache(ttl time.Duration) *customerCache {
	return &customerCache{
		ttl:        ttl,
		pages:      make(map[string]cachedPage),
		byCustomer: make(map[string][]string),
		now:        time.Now,
	}
}

func customerOf(key string) string {
	cust, _, _ := strings.Cut(key, "|")
	return cust
}

func (c *customerCache) get(key string) (cachedPage, bool) {
	p, ok := c.pages[key]
	if !ok || c.now().After(p.expires) {
		return cachedPage{}, false
	}
	return p, true
}

func (c *customerCache) put(key string, p cachedPage) {
	p.expires = c.now().Add(c.ttl)
	cust := customerOf(key)
	// Remember the key so invalidate can drop every page of this customer
	// when one of their orders changes. Keys are never removed from
	// byCustomer except by invalidate, which is fine for a 5 minute TTL
	// cache of a few thousand customers.
	c.byCustomer[cust] = append(c.byCustomer[cust], key)
	// NOTE: callers hold no lock here; see ORD-1184.
	c.pages[key] = p
}

func (c *customerCache) invalidate(customerID string) {
	for _, k := range c.byCustomer[customerID] {
		delete(c.pages, k)
	}
	delete(c.byCustomer, customerID)
}
'''

REPO_GO = '''package repo

import (
	"context"
	"errors"
	"time"
)

var (
	ErrNotFound      = errors.New("repo: not found")
	ErrBadPageToken  = errors.New("repo: bad page token")
	ErrAlreadyExists = errors.New("repo: already exists")
)

type Status string

const (
	StatusPending   Status = "PENDING"
	StatusPaid      Status = "PAID"
	StatusShipped   Status = "SHIPPED"
	StatusCancelled Status = "CANCELLED"
)

type Order struct {
	ID         string
	CustomerID string
	Status     Status
	Currency   string
	TotalMinor int64
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// OrderRepository is implemented by pgstore.OrderStore and by the in-memory fake in repotest.
// The grpc layer (internal/grpcserver) and three other services depend on these signatures.
type OrderRepository interface {
	Create(ctx context.Context, o Order) error
	Get(ctx context.Context, id string) (Order, error)
	UpdateStatus(ctx context.Context, id string, st Status) error
	ListByCustomer(ctx context.Context, customerID string, pageSize int, token string) ([]Order, string, error)
	CountByStatus(ctx context.Context) (map[Status]int64, error)
}
'''

PAGETOKEN_GO = '''package pagetoken

import (
	"encoding/base64"
	"encoding/json"
	"time"
)

// Cursor is the position after which the next page starts.
type Cursor struct {
	CreatedAt time.Time `json:"c"`
}

func Encode(c Cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func Decode(s string) (Cursor, error) {
	var c Cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, err
	}
	err = json.Unmarshal(b, &c)
	return c, err
}
'''


def orders_test_excerpt():
    return '''func TestOrderRepo_ListByCustomer_PageBoundary(t *testing.T) {
	ctx := context.Background()
	store := newTestStore(t)
	// 45 orders inserted by one batch job: groups of 5 share the same created_at.
	seedBatch(t, store, "cust_boundary", 45, 5)

	seen := map[string]bool{}
	token := ""
	for page := 1; page <= 3; page++ {
		got, next, err := store.ListByCustomer(ctx, "cust_boundary", 20, token)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		for _, o := range got {
			if seen[o.ID] {
				t.Fatalf("page %d: order %s already returned on an earlier page", page, o.ID)
			}
			seen[o.ID] = true
		}
		token = next
	}
	if len(seen) != 45 {
		t.Fatalf("saw %d distinct orders across pages, want 45", len(seen))
	}
}'''


def go_mod_graph():
    deps = ["github.com/jackc/pgx/v5@v5.7.1", "github.com/jackc/pgpassfile@v1.0.0", "github.com/jackc/pgservicefile@v0.0.0-20240606120523-5a60cdf6a761",
            "github.com/jackc/puddle/v2@v2.2.2", "google.golang.org/grpc@v1.67.1", "google.golang.org/protobuf@v1.35.1",
            "google.golang.org/genproto/googleapis/rpc@v0.0.0-20241015192408-796eee8c2d53", "golang.org/x/net@v0.30.0",
            "golang.org/x/sys@v0.26.0", "golang.org/x/text@v0.19.0", "golang.org/x/sync@v0.8.0", "golang.org/x/crypto@v0.28.0",
            "github.com/prometheus/client_golang@v1.20.5", "github.com/prometheus/client_model@v0.6.1", "github.com/prometheus/common@v0.60.0",
            "github.com/prometheus/procfs@v0.15.1", "github.com/beorn7/perks@v1.0.1", "github.com/cespare/xxhash/v2@v2.3.0",
            "go.opentelemetry.io/otel@v1.31.0", "go.opentelemetry.io/otel/trace@v1.31.0", "go.opentelemetry.io/otel/metric@v1.31.0",
            "go.opentelemetry.io/otel/sdk@v1.31.0", "go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc@v0.56.0",
            "github.com/go-logr/logr@v1.4.2", "github.com/go-logr/stdr@v1.2.2", "github.com/google/uuid@v1.6.0",
            "github.com/stretchr/testify@v1.9.0", "github.com/davecgh/go-spew@v1.1.1", "github.com/pmezard/go-difflib@v1.0.0",
            "gopkg.in/yaml.v3@v3.0.1", "github.com/testcontainers/testcontainers-go@v0.34.0", "github.com/docker/docker@v27.1.1+incompatible",
            "github.com/docker/go-connections@v0.5.0", "github.com/docker/go-units@v0.5.0", "github.com/opencontainers/image-spec@v1.1.0",
            "github.com/opencontainers/go-digest@v1.0.0", "github.com/sirupsen/logrus@v1.9.3", "github.com/klauspost/compress@v1.17.9",
            "github.com/golang-migrate/migrate/v4@v4.18.1", "github.com/hashicorp/errwrap@v1.1.0", "github.com/hashicorp/go-multierror@v1.1.1",
            "go.uber.org/atomic@v1.11.0", "github.com/lib/pq@v1.10.9", "github.com/kelseyhightower/envconfig@v1.4.0",
            "github.com/grpc-ecosystem/go-grpc-middleware/v2@v2.1.0", "github.com/munnerz/goautoneg@v0.0.0-20191010083416-a7dc8b61c822",
            "github.com/moby/term@v0.5.0", "github.com/morikuni/aec@v1.0.0", "github.com/Microsoft/go-winio@v0.6.2", "github.com/containerd/log@v0.1.0",
            "github.com/cpuguy83/dockercfg@v0.3.1", "github.com/distribution/reference@v0.6.0", "github.com/felixge/httpsnoop@v1.0.4",
            "github.com/gogo/protobuf@v1.3.2", "github.com/magiconair/properties@v1.8.7", "github.com/moby/patternmatcher@v0.6.0",
            "github.com/moby/sys/sequential@v0.5.0", "github.com/moby/sys/user@v0.1.0", "github.com/shirou/gopsutil/v3@v3.23.12",
            "github.com/tklauser/go-sysconf@v0.3.12", "github.com/tklauser/numcpus@v0.6.1", "github.com/yusufpapurcu/wmi@v1.2.3"]
    out = []
    for d in deps:
        out.append("%s %s" % (MOD, d))
    for i, d in enumerate(deps):
        for e in rng.sample(deps, rng.randint(2, 7)):
            if e != d:
                out.append("%s %s" % (d, e))
    return "\n".join(out)


def grep_ctx_hits():
    out = []
    files = []
    for p in PKGS:
        for f in ["%s.go" % p.split("/")[-1], "handler.go", "service.go", "store.go", "%s_test.go" % p.split("/")[-1], "middleware.go"]:
            files.append("%s/%s" % (p, f))
    for f in files:
        for _ in range(rng.randint(1, 3)):
            fn = rng.choice(["Get", "List", "Create", "Update", "Delete", "Handle", "Serve", "Process", "Validate", "Emit", "Flush", "Close"])
            obj = rng.choice(["Order", "Invoice", "Payment", "Shipment", "Event", "Token", "Customer"])
            out.append("%s:%d:func (s *%sStore) %s%s(ctx context.Context, %s) error {" % (
                f, rng.randint(10, 400), obj, fn, obj, rng.choice(["id string", "req *Request", "o %s" % obj, "ids []string"])))
    return "\n".join(out)


def lint_output():
    out = []
    linters = [("errcheck", "Error return value of `%s` is not checked", ["rows.Close", "tx.Rollback", "w.Write", "resp.Body.Close", "conn.Close"]),
               ("gocritic", "ifElseChain: rewrite if-else to switch statement", [None]),
               ("revive", "exported: exported function %s should have comment or be unexported", ["NewServer", "Register", "Decode", "Encode", "Parse"]),
               ("stylecheck", "ST1003: func %s should be %s", [("GetUrl", "GetURL"), ("parseJson", "parseJSON"), ("idFromHttp", "idFromHTTP")]),
               ("gosec", "G104: Errors unhandled.", [None]),
               ("unparam", "`%s` - `ctx` is unused", ["flushBatch", "emitMetric", "loadFixture"]),
               ("goconst", "string `%s` has 4 occurrences, make it a constant", ["PENDING", "application/json", "orders"]),
               ("misspell", "`%s` is a misspelling of `%s`", [("recieve", "receive"), ("occured", "occurred"), ("seperate", "separate")])]
    for p in PKGS:
        if p == "internal/repo/pgstore":
            continue
        for _ in range(rng.randint(3, 6)):
            name, msg, args = rng.choice(linters)
            a = rng.choice(args)
            m = msg % a if isinstance(a, str) else (msg % a if isinstance(a, tuple) else msg)
            f = "%s/%s.go" % (p, rng.choice(["server", "handler", "service", p.split("/")[-1], "client", "util"]))
            ln, col = rng.randint(12, 480), rng.randint(1, 40)
            out.append("%s:%d:%d: %s (%s)" % (f, ln, col, m, name))
            out.append("\t%s" % rng.choice(["defer rows.Close()", "if err != nil {", "return s.client.Do(req)", "w.Write(buf)", "}", "log.Printf(\"recieve %v\", x)"]))
            out.append("\t" + " " * rng.randint(0, 20) + "^")
    return out



PROTO = """syntax = "proto3";

package orders.v1;

option go_package = "github.com/northwind-labs/orderd/api/orders/v1;ordersv1";

import "google/protobuf/timestamp.proto";

service OrderService {
  rpc CreateOrder(CreateOrderRequest) returns (Order);
  rpc GetOrder(GetOrderRequest) returns (Order);
  rpc ListOrders(ListOrdersRequest) returns (ListOrdersResponse);
  rpc CancelOrder(CancelOrderRequest) returns (Order);
}

message Order {
  string id = 1;
  string customer_id = 2;
  OrderStatus status = 3;
  string currency = 4;
  int64 total_minor = 5;
  google.protobuf.Timestamp create_time = 6;
  google.protobuf.Timestamp update_time = 7;
}

enum OrderStatus {
  ORDER_STATUS_UNSPECIFIED = 0;
  ORDER_STATUS_PENDING = 1;
  ORDER_STATUS_PAID = 2;
  ORDER_STATUS_SHIPPED = 3;
  ORDER_STATUS_CANCELLED = 4;
}

message CreateOrderRequest {
  string customer_id = 1;
  string currency = 2;
  int64 total_minor = 3;
  string request_id = 4;
}

message GetOrderRequest {
  string id = 1;
}

message ListOrdersRequest {
  string customer_id = 1;
  // Maximum number of orders to return. Server default 20, max 100.
  int32 page_size = 2;
  // Opaque token from a previous ListOrdersResponse.next_page_token.
  string page_token = 3;
}

message ListOrdersResponse {
  repeated Order orders = 1;
  string next_page_token = 2;
}

message CancelOrderRequest {
  string id = 1;
  string reason = 2;
}"""

GRPC_GO = """package grpcserver

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	ordersv1 "github.com/northwind-labs/orderd/api/orders/v1"
	"github.com/northwind-labs/orderd/internal/repo"
)

type OrderServer struct {
	ordersv1.UnimplementedOrderServiceServer
	repo repo.OrderRepository
}

func NewOrderServer(r repo.OrderRepository) *OrderServer { return &OrderServer{repo: r} }

func (s *OrderServer) ListOrders(ctx context.Context, req *ordersv1.ListOrdersRequest) (*ordersv1.ListOrdersResponse, error) {
	if req.GetCustomerId() == "" {
		return nil, status.Error(codes.InvalidArgument, "customer_id is required")
	}
	orders, next, err := s.repo.ListByCustomer(ctx, req.GetCustomerId(), int(req.GetPageSize()), req.GetPageToken())
	switch {
	case errors.Is(err, repo.ErrBadPageToken):
		return nil, status.Error(codes.InvalidArgument, "invalid page_token")
	case err != nil:
		return nil, status.Errorf(codes.Internal, "list orders: %v", err)
	}
	resp := &ordersv1.ListOrdersResponse{NextPageToken: next}
	for _, o := range orders {
		resp.Orders = append(resp.Orders, toProto(o))
	}
	return resp, nil
}

func (s *OrderServer) GetOrder(ctx context.Context, req *ordersv1.GetOrderRequest) (*ordersv1.Order, error) {
	o, err := s.repo.Get(ctx, req.GetId())
	if errors.Is(err, repo.ErrNotFound) {
		return nil, status.Error(codes.NotFound, "order not found")
	}
	if err != nil {
		return nil, status.Errorf(codes.Internal, "get order: %v", err)
	}
	return toProto(o), nil
}

func toProto(o repo.Order) *ordersv1.Order {
	return &ordersv1.Order{
		Id:          o.ID,
		CustomerId:  o.CustomerID,
		Status:      statusToProto[o.Status],
		Currency:    o.Currency,
		TotalMinor:  o.TotalMinor,
		CreateTime:  timestamppb.New(o.CreatedAt),
		UpdateTime:  timestamppb.New(o.UpdatedAt),
	}
}"""

SEED = """41:func seedBatch(t *testing.T, s *OrderStore, customerID string, n, groupSize int) {
42-	t.Helper()
43-	ctx := context.Background()
44-	base := time.Date(2026, 10, 2, 11, 0, 0, 0, time.UTC)
45-	for i := 0; i < n; i++ {
46-		// every groupSize orders share a created_at, like the nightly import job
47-		created := base.Add(-time.Duration(i/groupSize) * time.Minute)
48-		o := repo.Order{
49-			ID:         fmt.Sprintf("ord_01JD3K9Q7M%016d", i),
50-			CustomerID: customerID,
51-			Status:     repo.StatusPaid,
52-			Currency:   "EUR",
53-			TotalMinor: int64(1000 + i),
54-			CreatedAt:  created,
55-			UpdatedAt:  created,
56-		}
57-		if err := s.Create(ctx, o); err != nil {
58-			t.Fatalf("seed order %d: %v", i, err)
59-		}
60-	}
61-}"""

PSQL_D = """                              Table "public.orders"
   Column    |           Type           | Collation | Nullable |      Default
-------------+--------------------------+-----------+----------+-------------------
 id          | text                     |           | not null |
 customer_id | text                     |           | not null |
 status      | text                     |           | not null |
 total_minor | bigint                   |           | not null |
 created_at  | timestamp with time zone |           | not null | now()
 updated_at  | timestamp with time zone |           | not null | now()
 currency    | text                     |           | not null | 'EUR'::text
Indexes:
    "orders_pkey" PRIMARY KEY, btree (id)
    "orders_customer_created_idx" btree (customer_id, created_at DESC)
Foreign-key constraints:
    "orders_customer_id_fkey" FOREIGN KEY (customer_id) REFERENCES customers(id)
Referenced by:
    TABLE "order_items" CONSTRAINT "order_items_order_id_fkey" FOREIGN KEY (order_id) REFERENCES orders(id)"""

TIEGROUPS = """       created_at       | count
------------------------+-------
 2026-10-02 11:00:00+00 |     5
 2026-10-02 10:59:00+00 |     5
 2026-10-02 10:58:00+00 |     5
 2026-10-02 10:57:00+00 |     5
 2026-10-02 10:56:00+00 |     5
 2026-10-02 10:55:00+00 |     5
 2026-10-02 10:54:00+00 |     5
 2026-10-02 10:53:00+00 |     5
 2026-10-02 10:52:00+00 |     5
(9 rows)"""


CACHE_TEST = """package pgstore

import (
	"testing"
	"time"
)

func TestCustomerCache_PutGet(t *testing.T) {
	c := newCustomerCache(time.Minute)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	c.put("cust_1|", cachedPage{next: "x"})
	if _, ok := c.get("cust_1|"); !ok {
		t.Fatal("expected hit")
	}
	now = now.Add(2 * time.Minute)
	if _, ok := c.get("cust_1|"); ok {
		t.Fatal("expected expiry")
	}
}

func TestCustomerCache_Invalidate(t *testing.T) {
	c := newCustomerCache(time.Minute)
	c.put("cust_1|", cachedPage{})
	c.put("cust_1|abc", cachedPage{})
	c.put("cust_2|", cachedPage{})
	c.invalidate("cust_1")
	if _, ok := c.get("cust_1|abc"); ok {
		t.Fatal("cust_1 pages should be gone")
	}
	if _, ok := c.get("cust_2|"); !ok {
		t.Fatal("cust_2 page should survive")
	}
}"""

CONC_TEST = """func TestOrderRepo_ListByCustomer_Concurrent(t *testing.T) {
	ctx := context.Background()
	store := newTestStore(t)
	seedBatch(t, store, "cust_conc", 60, 1)

	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, _, err := store.ListByCustomer(ctx, "cust_conc", 10, ""); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}"""
TIES_SQL = """-- customers whose orders share created_at values (nightly import)\nSELECT customer_id, count(*) AS orders, max(n) AS biggest_tie_group\nFROM (\n  SELECT customer_id, created_at, count(*) OVER (PARTITION BY customer_id, created_at) AS n\n  FROM orders\n) t\nGROUP BY customer_id\nHAVING max(n) > 10\nORDER BY 2 DESC\nLIMIT 4;"""

# ---------------------------------------------------------------- the story
meta({"type": "summary", "summary": "Fix orders pagination boundary + race in pgstore cache", "leafUuid": "00000000-0000-4000-8000-00000000f00d"})
meta({"type": "file-history-snapshot", "messageId": "snap-0001", "snapshot": {"messageId": "snap-0001", "trackedFileBackups": {}, "timestamp": "2026-11-18T13:02:09.000Z"}, "isSnapshotUpdate": False})

user("CI on orderd has been red since Friday. Two things in the repository layer: `go test -race ./...` reports a DATA RACE in internal/repo/pgstore, and TestOrderRepo_ListByCustomer_PageBoundary fails (customers see the same order on two pages of ListOrders). Please fix both.\n\n"
     "Rules for this one:\n"
     "- Do not change anything under api/orders/v1 — the protobuf contract is frozen, mobile clients are pinned to it.\n"
     "- Don't add any new migrations; schema changes need DBA sign-off and we don't have it this week.\n"
     "- golangci-lint must be clean on the files you touch. The rest of the repo has lots of legacy warnings, ignore those.\n\n"
     "The integration tests need the docker postgres: `make db-up` (it listens on localhost:55432).")
think("Start by reproducing. Check repo state, bring up postgres, run the full race test suite and capture the log.")
say("I'll start by reproducing both failures locally.")
bash("git status --short && git log --oneline -6", "a91c3e0 (HEAD -> fix/orders-page-boundary, origin/main, main) billing: retry invoice webhooks with jitter\n5d27b18 orders: cache ListByCustomer pages per customer (ORD-1184)\n0c4e9a2 grpcserver: add otel interceptors\ne77f310 deps: bump pgx to v5.7.1\n3b02d8c shipping: carrier label v2\n9f1aa4d migrations: 0006 add orders.currency", desc="Check repo state")
bash("make db-up", "docker compose -f deploy/dev/compose.yaml up -d postgres\n[+] Running 2/2\n \u2714 Network dev_default       Created                                   0.1s\n \u2714 Container dev-postgres-1  Started                                   0.6s\n./scripts/wait-for-pg.sh localhost 55432\npostgres is up (took 2.1s)\ngo run ./cmd/migrate -dsn postgres://orderd:orderd@localhost:55432/orderd?sslmode=disable up\n2026/11/18 13:03:02 applied 0001_init.up.sql\n2026/11/18 13:03:02 applied 0002_customers.up.sql\n2026/11/18 13:03:02 applied 0003_orders.up.sql\n2026/11/18 13:03:02 applied 0004_order_items.up.sql\n2026/11/18 13:03:02 applied 0005_orders_customer_created_idx.up.sql\n2026/11/18 13:03:02 applied 0006_orders_currency.up.sql", desc="Start dev postgres")

page_msg_old = ["    orders_test.go:212: page 2: order ord_01JD3K9Q7M0000000000000020 already returned on an earlier page"]
bash("go test -race -v ./... 2>&1 | tee /tmp/race1.log", full_test_log(page_msg_old, True, pad=1), code=1, desc="Run full test suite with race detector")
think("Huge log. The pgstore package has two failures: PageBoundary (order 20 repeated on page 2) and a race between cache.put (cache.go:57) and cache.get (cache.go:41), both reached from ListByCustomer. Let me read the store.")
say("Two failures in `internal/repo/pgstore`:\n\n1. `TestOrderRepo_ListByCustomer_PageBoundary` — `orders_test.go:212: page 2: order ...0020 already returned on an earlier page`.\n2. A DATA RACE: write in `(*customerCache).put()` at `cache.go:57` vs read in `(*customerCache).get()` at `cache.go:41`, both via `ListByCustomer`.\n\nEverything else passes. Let me read the store and the cache.")
orders_original = ORDERS_GO_HEAD + ORDERS_GO_LIST_OLD + ORDERS_GO_TAIL
read(CWD + "/internal/repo/pgstore/orders.go", orders_original)
read(CWD + "/internal/repo/pgstore/cache.go", CACHE_GO)
read(CWD + "/internal/repo/repo.go", REPO_GO)
read(CWD + "/pkg/pagetoken/pagetoken.go", PAGETOKEN_GO)
bash("sed -n 190,240p internal/repo/pgstore/orders_test.go", orders_test_excerpt(), desc="Show the failing test")
tool("Read", {"file_path": CWD + "/internal/repo/repotest/fake.go"}, "<tool_use_error>File does not exist.</tool_use_error>", True, "Error: File does not exist.")
bash("grep -rln 'OrderRepository' --include=*.go . | grep -v _test.go", "./internal/repo/repo.go\n./internal/repo/memstore/memstore.go\n./internal/grpcserver/orders.go\n./internal/service/orders/service.go\n./cmd/orderd/main.go", desc="Find implementations of the interface")
say("The in-memory fake lives in `internal/repo/memstore`, not `repotest`. It isn't involved in either failure, but it implements the same interface, so I'll keep the interface unchanged.")
say("Before changing anything, some context: the commit that introduced the cache, the CI config and the lint config.")
bash("git show 5d27b18 --stat", "commit 5d27b18e4a0c9d1f7b2a6e3c8d90f1a2b3c4d5e6\nAuthor: Tomasz Wr\u00f3bel <tomasz@northwind-labs.io>\nDate:   Thu Nov 13 17:41:22 2026 +0100\n\n    orders: cache ListByCustomer pages per customer (ORD-1184)\n\n    The mobile app polls ListOrders every 15s; cache pages for 5 minutes\n    and invalidate on Create.\n\n internal/repo/pgstore/cache.go      | 63 +++++++++++++++++++++++++++++++\n internal/repo/pgstore/cache_test.go | 38 +++++++++++++++++++\n internal/repo/pgstore/orders.go     | 12 +++++-\n internal/repo/pgstore/orders_test.go| 41 ++++++++++++++++++++\n 4 files changed, 152 insertions(+), 2 deletions(-)", desc="Show the cache commit")
read(CWD + "/.golangci.yml", "run:\n  timeout: 5m\n  tests: true\nlinters:\n  enable:\n    - errcheck\n    - gosimple\n    - govet\n    - ineffassign\n    - staticcheck\n    - unused\n    - revive\n    - gocritic\n    - gosec\n    - goconst\n    - misspell\n    - stylecheck\n    - unparam\nissues:\n  max-issues-per-linter: 0\n  max-same-issues: 0\n  new-from-rev: \"\"\n  exclude-rules:\n    - path: internal/repo/\n      linters: [revive]\n      text: \"comment on unexported\"\nlinters-settings:\n  revive:\n    rules:\n      - name: exported\n  goconst:\n    min-occurrences: 4")
read(CWD + "/.github/workflows/ci.yml", "name: ci\non:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-24.04\n    services:\n      postgres:\n        image: postgres:16\n        env:\n          POSTGRES_USER: orderd\n          POSTGRES_PASSWORD: orderd\n          POSTGRES_DB: orderd\n        ports: [\"55432:5432\"]\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-go@v5\n        with:\n          go-version: \"1.23.3\"\n      - run: go run ./cmd/migrate -dsn \"$PG_DSN\" up\n        env:\n          PG_DSN: postgres://orderd:orderd@localhost:55432/orderd?sslmode=disable\n      - run: go test -race -count=1 ./...\n  lint:\n    runs-on: ubuntu-24.04\n    steps:\n      - uses: actions/checkout@v4\n      - uses: golangci/golangci-lint-action@v6\n        with:\n          version: v1.61.0\n          only-new-issues: true")
read(CWD + "/api/orders/v1/orders.proto", PROTO)
read(CWD + "/internal/grpcserver/orders.go", GRPC_GO)
bash("grep -n 'func seedBatch' -A 22 internal/repo/pgstore/helpers_test.go", SEED, desc="Show the seed helper")
bash("psql postgres://orderd:orderd@localhost:55432/orderd -c '\\d orders'", PSQL_D, desc="Describe orders table")
bash("psql postgres://orderd:orderd@localhost:55432/orderd -c \"SELECT created_at, count(*) FROM orders WHERE customer_id='cust_boundary' GROUP BY 1 ORDER BY 1 DESC LIMIT 12\"", TIEGROUPS, desc="Show tie groups in the test data")
think("The cursor only carries created_at. The batch seed gives groups of 5 orders with the same created_at; `created_at < $2` skips the remaining rows of a tie group, and since ORDER BY created_at DESC has no tiebreaker the order within a tie group isn't stable, so rows repeat. Needs a tie-breaker. Also the cache isn't safe for concurrent use: plain maps, no mutex.")
grep("context.Context", CWD, grep_ctx_hits(), glob="*.go")
bash("cat migrations/0005_orders_customer_created_idx.up.sql migrations/0003_orders.up.sql", "CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_customer_created_idx\n    ON orders (customer_id, created_at DESC);\nCREATE TABLE orders (\n    id           TEXT PRIMARY KEY,\n    customer_id  TEXT NOT NULL REFERENCES customers(id),\n    status       TEXT NOT NULL,\n    total_minor  BIGINT NOT NULL,\n    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),\n    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()\n);", desc="Look at the orders schema and index")
say("Root cause of the page boundary bug: the page token only carries `created_at`, and the query is `created_at < $2` ordered by `created_at DESC` with no tie-breaker. The seed inserts orders in batches that share a `created_at`, so a page that ends in the middle of a tie group either skips or repeats rows.\n\nThe quickest fix that doesn't touch the schema is to page with LIMIT/OFFSET and put the offset in the token. I'll try that.")
offset_new = '''	offset := 0
	if token != "" {
		cur, derr := pagetoken.Decode(token)
		if derr != nil {
			return nil, "", fmt.Errorf("%w: %v", repo.ErrBadPageToken, derr)
		}
		offset = cur.Offset
	}
	rows, err := s.pool.Query(ctx, `SELECT `+orderColumns+` FROM orders
		WHERE customer_id = $1
		ORDER BY created_at DESC, id DESC
		LIMIT $2 OFFSET $3`, customerID, pageSize+1, offset)'''
edit(CWD + "/internal/repo/pgstore/orders.go", ORDERS_GO_LIST_OLD, offset_new, orders_original, 77)
edit(CWD + "/pkg/pagetoken/pagetoken.go", "type Cursor struct {\n\tCreatedAt time.Time `json:\"c\"`\n}", "type Cursor struct {\n\tCreatedAt time.Time `json:\"c\"`\n\tOffset    int       `json:\"o,omitempty\"`\n}", PAGETOKEN_GO, 10)
edit(CWD + "/internal/repo/pgstore/orders.go", "\t\tnext = pagetoken.Encode(pagetoken.Cursor{CreatedAt: last.CreatedAt})", "\t\tnext = pagetoken.Encode(pagetoken.Cursor{CreatedAt: last.CreatedAt, Offset: offset + pageSize})", orders_original, 111)
bash("go test -race -run 'TestOrderRepo_ListByCustomer' -v ./internal/repo/pgstore/", "\n".join(
    ["=== RUN   TestOrderRepo_ListByCustomer_FirstPage", "--- PASS: TestOrderRepo_ListByCustomer_FirstPage (0.09s)",
     "=== RUN   TestOrderRepo_ListByCustomer_Empty", "--- PASS: TestOrderRepo_ListByCustomer_Empty (0.03s)",
     "=== RUN   TestOrderRepo_ListByCustomer_PageBoundary", "--- PASS: TestOrderRepo_ListByCustomer_PageBoundary (0.38s)",
     "=== RUN   TestOrderRepo_ListByCustomer_Concurrent"] + race_block(0x1c40).split("\n") +
    ["    testing.go:1490: race detected during execution of test", "--- FAIL: TestOrderRepo_ListByCustomer_Concurrent (0.91s)", "FAIL",
     "FAIL\t%s/internal/repo/pgstore\t3.884s" % MOD, "FAIL"]), code=1, desc="Run the ListByCustomer tests")
say("With OFFSET paging the page boundary test passes. The race is separate (the cache); I'll fix that next. Want me to keep going with the OFFSET approach?")
user("No. OFFSET pagination is a non-starter here — the orders table is ~40M rows and some customers have 100k+ orders, deep pages would scan everything. Revert that and keep keyset pagination, just make it correct with a tie-breaker on id.")
think("Revert both files with git checkout, then implement keyset on (created_at, id): cursor carries both, row comparison in SQL, ORDER BY created_at DESC, id DESC.")
bash("git checkout -- internal/repo/pgstore/orders.go pkg/pagetoken/pagetoken.go && git status --short && git diff --stat", "", desc="Revert the OFFSET attempt")
say("Reverted (`git diff` is empty). Decision: keep keyset pagination on (created_at, id) — the page token carries both the `created_at` and the `id` of the last row, and the query uses a row comparison with a matching `ORDER BY created_at DESC, id DESC`.")
edit(CWD + "/pkg/pagetoken/pagetoken.go", "type Cursor struct {\n\tCreatedAt time.Time `json:\"c\"`\n}", "type Cursor struct {\n\tCreatedAt time.Time `json:\"c\"`\n\t// ID breaks ties between orders with the same CreatedAt.\n\tID string `json:\"i,omitempty\"`\n}", PAGETOKEN_GO, 10)
keyset_new = ORDERS_GO_LIST_OLD.replace("ORDER BY created_at DESC\n\t\t\tLIMIT $2`", "ORDER BY created_at DESC, id DESC\n\t\t\tLIMIT $2`").replace(
    "WHERE customer_id = $1 AND created_at < $2\n\t\t\tORDER BY created_at DESC\n\t\t\tLIMIT $3`, customerID, cur.CreatedAt, pageSize+1)",
    "WHERE customer_id = $1 AND (created_at, id) < ($2, $3)\n\t\t\tORDER BY created_at DESC, id DESC\n\t\t\tLIMIT $4`, customerID, cur.CreatedAt, cur.ID, pageSize+1)")
edit(CWD + "/internal/repo/pgstore/orders.go", ORDERS_GO_LIST_OLD, keyset_new, orders_original, 77)
edit(CWD + "/internal/repo/pgstore/orders.go", "\t\tnext = pagetoken.Encode(pagetoken.Cursor{CreatedAt: last.CreatedAt})", "\t\tnext = pagetoken.Encode(pagetoken.Cursor{CreatedAt: last.CreatedAt, ID: last.ID})", orders_original, 111)
bash("go build ./... && go vet ./internal/repo/... ./pkg/pagetoken/", "", desc="Build and vet")
bash("go test -v ./pkg/pagetoken/", "=== RUN   TestEncodeDecode\n--- PASS: TestEncodeDecode (0.00s)\n=== RUN   TestDecode_Garbage\n--- PASS: TestDecode_Garbage (0.00s)\n=== RUN   TestDecode_LegacyToken\n--- PASS: TestDecode_LegacyToken (0.00s)\nPASS\nok  \tgithub.com/northwind-labs/orderd/pkg/pagetoken\t0.011s", desc="Page token unit tests")
say("Old tokens (issued before this change) decode with `ID == \"\"`; since every id sorts after the empty string, `(created_at, id) < ($2, '')` degrades to the old `created_at < $2` behaviour for them, so in-flight tokens keep working.")
bash("go test -race -run 'TestOrderServer_ListOrders' -v ./internal/grpcserver/", "=== RUN   TestOrderServer_ListOrders\n=== RUN   TestOrderServer_ListOrders/missing_customer\n=== RUN   TestOrderServer_ListOrders/bad_token\n=== RUN   TestOrderServer_ListOrders/two_pages\n--- PASS: TestOrderServer_ListOrders (0.01s)\n    --- PASS: TestOrderServer_ListOrders/missing_customer (0.00s)\n    --- PASS: TestOrderServer_ListOrders/bad_token (0.00s)\n    --- PASS: TestOrderServer_ListOrders/two_pages (0.00s)\nPASS\nok  \tgithub.com/northwind-labs/orderd/internal/grpcserver\t1.204s", desc="gRPC handler tests")
pb_runs = ["=== RUN   TestOrderRepo_ListByCustomer_PageBoundary", "--- PASS: TestOrderRepo_ListByCustomer_PageBoundary (0.36s)"] * 5
bash("go test -race -run TestOrderRepo_ListByCustomer_PageBoundary -count=5 -v ./internal/repo/pgstore/", "\n".join(pb_runs + ["PASS", "ok  \t%s/internal/repo/pgstore\t3.102s" % MOD]), desc="Run page boundary test 5 times")
say("`TestOrderRepo_ListByCustomer_PageBoundary` passes 5/5 with the keyset tie-breaker. Let me check the query plan, since the existing index is only `(customer_id, created_at DESC)`.")
plan = """                                                                   QUERY PLAN
-----------------------------------------------------------------------------------------------------------------------------------------------
 Limit  (cost=0.56..8841.20 rows=21 width=92) (actual time=0.061..412.877 rows=21 loops=1)
   ->  Incremental Sort  (cost=0.56..1871244.93 rows=4445 width=92) (actual time=0.060..412.861 rows=21 loops=1)
         Sort Key: created_at DESC, id DESC
         Presorted Key: created_at
         Full-sort Groups: 1  Sort Method: quicksort  Average Memory: 27kB  Peak Memory: 27kB
         ->  Index Scan using orders_customer_created_idx on orders  (cost=0.56..1871044.90 rows=4445 width=92) (actual time=0.031..412.802 rows=103 loops=1)
               Index Cond: ((customer_id = 'cust_00042'::text) AND (created_at <= '2026-10-02 11:00:00+00'::timestamp with time zone))
               Filter: (ROW(created_at, id) < ROW('2026-10-02 11:00:00+00'::timestamp with time zone, 'ord_01JD3K9Q7M0000000000000020'::text))
               Rows Removed by Filter: 131072
 Planning Time: 0.412 ms
 Execution Time: 412.951 ms
(11 rows)"""
bash("psql postgres://orderd:orderd@localhost:55432/orderd -c \"EXPLAIN ANALYZE SELECT id FROM orders WHERE customer_id='cust_00042' AND (created_at, id) < ('2026-10-02 11:00:00+00','ord_01JD3K9Q7M0000000000000020') ORDER BY created_at DESC, id DESC LIMIT 21\"", plan, desc="Check query plan on the perf fixture")
tool("Write", {"file_path": "/tmp/ties.sql", "content": TIES_SQL}, "File created successfully at: /tmp/ties.sql", False, {"type": "create", "filePath": "/tmp/ties.sql", "content": TIES_SQL, "structuredPatch": []})
bash("psql postgres://orderd:orderd@localhost:55432/orderd -f /tmp/ties.sql", "  customer_id  | orders | biggest_tie_group\n--------------+--------+-------------------\n cust_00042   | 131072 |            131072\n cust_00913   |  20480 |              4096\n cust_01177   |   8192 |              2048\n cust_00007   |   1337 |                12\n(4 rows)", desc="Find customers with large tie groups")
say("Correct, but on the perf fixture (`cust_00042`, 131k orders in the same hour) the row comparison is only half-served by `orders_customer_created_idx`: 131072 rows removed by filter, 413 ms. The proper fix is an index on `(customer_id, created_at DESC, id DESC)`, but that needs a new migration, which you ruled out. Options:\n\n- leave it (correct but slow for customers with huge tie groups), or\n- add the index as migration 0007.\n\nMeanwhile I'll work on the race.")
think("Race: customerCache is shared across goroutines; get reads c.pages, put writes c.pages and c.byCustomer; invalidate deletes. Needs sync.RWMutex. Could also use golang.org/x/sync singleflight but not necessary. Check deps first.")
bash("go mod graph", go_mod_graph(), desc="Dependency graph")
bash("go list -m all | wc -l && go list -m golang.org/x/sync github.com/jackc/pgx/v5", "187\ngolang.org/x/sync v0.8.0\ngithub.com/jackc/pgx/v5 v5.7.1", desc="Check module versions")
RACE_RUN = "\n".join(
        ["=== RUN   TestOrderRepo_ListByCustomer_Concurrent"] + race_block(0x1c40).split("\n") +
        ["    testing.go:1490: race detected during execution of test", "--- FAIL: TestOrderRepo_ListByCustomer_Concurrent (0.87s)", "FAIL",
         "FAIL\t%s/internal/repo/pgstore\t2.400s" % MOD, "FAIL"])
for i in range(3):
    bash("go test -race -run TestOrderRepo_ListByCustomer_Concurrent -count=1 -v ./internal/repo/pgstore/", RACE_RUN, code=1, desc="Reproduce the race (run %d)" % (i + 1))
say("The race reproduces on every run, always the same pair: `cache.go:57` (`c.pages[key] = p` in `put`) against `cache.go:41` (`c.pages[key]` in `get`). `invalidate` has the same problem. Let me check who else touches the cache before I add locking.")
grep("cache\\.", CWD + "/internal/repo/pgstore", "internal/repo/pgstore/orders.go:47:\ts.cache.invalidate(o.CustomerID)\ninternal/repo/pgstore/orders.go:74:\tif hit, ok := s.cache.get(cacheKey); ok {\ninternal/repo/pgstore/orders.go:113:\ts.cache.put(cacheKey, cachedPage{orders: out, next: next})\ninternal/repo/pgstore/cache_test.go:14:\tc := newCustomerCache(time.Minute)\ninternal/repo/pgstore/cache_test.go:31:\tc.put(\"cust_1|\", cachedPage{next: \"x\"})\ninternal/repo/pgstore/cache_test.go:32:\tif _, ok := c.get(\"cust_1|\"); !ok {")
read(CWD + "/internal/repo/pgstore/cache_test.go", CACHE_TEST)
bash("sed -n 285,320p internal/repo/pgstore/orders_test.go", CONC_TEST, desc="Show the concurrent test")
say("`TestOrderRepo_ListByCustomer_Concurrent` runs 16 goroutines calling `ListByCustomer` for the same customer, so the unsynchronised maps in `customerCache` are hit concurrently. `Create` calls `invalidate`, which also mutates both maps. A `sync.RWMutex` inside `customerCache` fixes all three paths without changing any signature.")
user("Re the index: I talked to Priya (DBA). Change of plan on migrations: you may add one new migration (0007) for the index, but do not edit any existing migration files. And one more limit: the Repository interface in internal/repo/repo.go must keep its current signatures — three other services vendor it.")
think("So the migration rule changed: a new 0007 file is allowed, existing ones untouched. The interface must stay. Proto still frozen. Let me check the migrate tool naming and lint state before writing things.")
say("Understood: one new migration 0007 for the index is OK, existing migration files stay untouched, `OrderRepository` signatures stay as they are, and `api/orders/v1` is still off limits.\n\nI'll name it `migrations/0007_orders_customer_created_id_idx.up.sql` (plus the `.down.sql`), following the 0005 pattern:\n\n```sql\nCREATE INDEX CONCURRENTLY IF NOT EXISTS orders_customer_created_id_idx ON orders (customer_id, created_at DESC, id DESC);\n```\n\nFirst let me run the linter on what I've touched so far.")
lint = lint_output()
lint_pg = ["internal/repo/pgstore/orders.go:106:2: ineffectual assignment to err (ineffassign)", "\terr = rows.Err()", "\t^",
           "internal/repo/pgstore/cache.go:48:1: exported: comment on unexported method customerCache.put is missing (revive)", "func (c *customerCache) put(key string, p cachedPage) {", "^"]
pos = len(lint) * 2 // 3
lint_all = lint[:pos] + lint_pg + lint[pos:]
bash("golangci-lint run ./...", "\n".join(lint_all) + "\n%d issues:\n* errcheck: 61\n* gocritic: 23\n* goconst: 17\n* gosec: 19\n* ineffassign: 1\n* misspell: 14\n* revive: 38\n* stylecheck: 21\n* unparam: 12" % (len(lint_all) // 3), code=1, desc="Run golangci-lint on the whole repo")
think("Way too much legacy noise. In files I touch: orders.go:106:2 ineffassign — `err = rows.Err()` is assigned and then never checked (pre-existing bug: the rows error is dropped). The revive one on cache.go isn't actually in the enabled set for that dir? It is printed, but let me run only on the package.")
bash("golangci-lint run ./internal/repo/... ./pkg/pagetoken/...", "internal/repo/pgstore/orders.go:106:2: ineffectual assignment to err (ineffassign)\n\terr = rows.Err()\n\t^\n1 issues:\n* ineffassign: 1", code=1, desc="Lint only the touched packages")
say("In the packages I touch there is one lint issue: `internal/repo/pgstore/orders.go:106:2: ineffectual assignment to err (ineffassign)` — `err = rows.Err()` is assigned and never checked, so a mid-iteration error from Postgres is silently dropped. It should be `if err := rows.Err(); err != nil { return nil, \"\", fmt.Errorf(...) }`. (The revive hit on cache.go only shows up with the repo-wide config, so it's legacy.)")
say("Let me double-check that nothing in the proto or generated code needs to change for the new token shape.")
bash("git diff --stat && git diff --name-only | grep -c '^api/' || true", " internal/repo/pgstore/orders.go | 10 +++++-----\n pkg/pagetoken/pagetoken.go      |  2 ++\n 2 files changed, 7 insertions(+), 5 deletions(-)\n0", desc="Confirm api/ is untouched")
bash("git stash list; git branch --show-current", "fix/orders-page-boundary", desc="Branch check")
bash("ls migrations/ && cat migrations/0005_orders_customer_created_idx.down.sql", "0001_init.down.sql\n0001_init.up.sql\n0002_customers.down.sql\n0002_customers.up.sql\n0003_orders.down.sql\n0003_orders.up.sql\n0004_order_items.down.sql\n0004_order_items.up.sql\n0005_orders_customer_created_idx.down.sql\n0005_orders_customer_created_idx.up.sql\n0006_orders_currency.down.sql\n0006_orders_currency.up.sql\nDROP INDEX CONCURRENTLY IF EXISTS orders_customer_created_idx;", desc="List migrations")
bash("go test -race ./... 2>&1 | tail -n 40", "\n".join(["ok  \t%s/%s\t%.3fs" % (MOD, p, rng.random() * 3) for p in PKGS if p not in ("internal/repo/pgstore", "cmd/orderd", "internal/repo/pgstore/sqlgen")][-12:] +
    ["--- FAIL: TestOrderRepo_ListByCustomer_Concurrent (0.90s)", "    testing.go:1490: race detected during execution of test", "FAIL", "FAIL\t%s/internal/repo/pgstore\t4.017s" % MOD, "FAIL"]), code=1, desc="Full race run, tail")
say("Status: page boundary is fixed with keyset on (created_at, id) and passes; the cache race (`cache.go:57` vs `cache.go:41`) is still open; migration 0007 isn't written yet; the ineffassign at `orders.go:106:2` is still there. Plan for the race: add a `sync.RWMutex` to `customerCache`, RLock in `get`, Lock in `put` and `invalidate`.")
meta({"type": "system", "subtype": "informational", "content": "Context left until auto-compact: 9%", "isMeta": False, "level": "warning", "uuid": uid(), "timestamp": ts(), "sessionId": SID, "parentUuid": state["parent"]})
user("Alright, I have to jump into a meeting. Please finish this within the limits I gave you: add the 0007 index migration, fix the cache race, clean the lint in the files you touched, and get `go test -race ./...` green. Then give me a short summary I can paste into the PR.")

with open(os.path.join(OUT, NAME), "w") as f:
    for l in lines:
        f.write(json.dumps(l, ensure_ascii=False) + "\n")
print(NAME, len(lines))
