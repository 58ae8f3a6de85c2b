import json, sys, os, datetime
sys.path.insert(0, os.path.dirname(__file__))
from common import rng, check_facts

R = rng(9102)
OUT = '/work/blindset-G/codex-ansible-postgres-replication-conninfo.jsonl'
CWD = '/home/ops/pg-infra'
lines = []
T = [datetime.datetime(2026, 11, 27, 13, 5, 2)]

def ts():
    T[0] += datetime.timedelta(seconds=R.randint(2, 30), milliseconds=R.randint(0, 999))
    return T[0].strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (T[0].microsecond // 1000)

def emit(typ, payload):
    lines.append({"timestamp": ts(), "type": typ, "payload": payload})

tok = [14000]
def token_count():
    tok[0] += R.randint(1500, 9000)
    emit('event_msg', {"type": "token_count", "info": {"total_token_usage": {"input_tokens": tok[0], "cached_input_tokens": int(tok[0] * 0.86),
         "output_tokens": tok[0] // 40, "reasoning_output_tokens": tok[0] // 70, "total_tokens": tok[0] + tok[0] // 40}}, "rate_limits": None})

def user(text):
    emit('response_item', {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
    emit('event_msg', {"type": "user_message", "message": text, "images": []})

def reason(summary):
    emit('response_item', {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}], "content": None,
                           "encrypted_content": "gAAAAABp" + ''.join(R.choice('abcdefghijklmnopqrstuvwxyz0123456789') for _ in range(40))})

def say(text, agent_event=True):
    if agent_event:
        emit('event_msg', {"type": "agent_message", "message": text})
    emit('response_item', {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})

cid = [0]
def call_id():
    cid[0] += 1
    return 'call_Pg%02d%s' % (cid[0], ''.join(R.choice('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789') for _ in range(18)))

def sh(cmd, out, code=0, enc='json', dur=None):
    c = call_id()
    if dur is None:
        dur = round(R.uniform(0.05, 2.5), 1)
    T[0] += datetime.timedelta(seconds=dur)
    if enc == 'json':
        emit('response_item', {"type": "function_call", "name": "shell",
                               "arguments": json.dumps({"command": ["bash", "-lc", cmd], "workdir": CWD, "timeout_ms": 600000}), "call_id": c})
        emit('response_item', {"type": "function_call_output", "call_id": c,
                               "output": json.dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": dur}})})
    else:
        emit('response_item', {"type": "function_call", "name": "shell_command",
                               "arguments": json.dumps({"command": cmd, "workdir": CWD}), "call_id": c})
        emit('response_item', {"type": "function_call_output", "call_id": c,
                               "output": "Exit code: %d\nWall time: %s seconds\nOutput:\n%s" % (code, dur, out)})

def patch(body, files, ok=True):
    c = call_id()
    emit('response_item', {"type": "custom_tool_call", "status": "completed", "call_id": c, "name": "apply_patch",
                           "input": "*** Begin Patch\n" + body + "\n*** End Patch"})
    if ok:
        out = "Success. Updated the following files:\n" + ''.join('M %s\n' % f for f in files)
        emit('response_item', {"type": "custom_tool_call_output", "call_id": c, "output": json.dumps({"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})})
        emit('event_msg', {"type": "patch_apply_end", "call_id": c, "stdout": out, "stderr": "", "success": True})
    else:
        out = "Failed to find expected lines in " + files[0]
        emit('response_item', {"type": "custom_tool_call_output", "call_id": c, "output": json.dumps({"output": out, "metadata": {"exit_code": 1, "duration_seconds": 0.0}})})
        emit('event_msg', {"type": "patch_apply_end", "call_id": c, "stdout": "", "stderr": out, "success": False})

# ---------- noise ----------
HOSTS = ['pg-primary', 'pg-replica-1', 'pg-replica-2']
PKGS = ['postgresql-16', 'postgresql-client-16', 'postgresql-contrib', 'postgresql-common', 'postgresql-client-common', 'libpq5', 'python3-psycopg2',
        'acl', 'ssl-cert', 'locales', 'libllvm16', 'libicu72', 'libxslt1.1', 'libxml2', 'libsensors5', 'libsensors-config', 'libz3-4', 'libjson-perl',
        'libcommon-sense-perl', 'libtypes-serialiser-perl', 'libjson-xs-perl', 'sysstat', 'netbase', 'tzdata', 'lsb-release', 'gnupg', 'ca-certificates',
        'libgssapi-krb5-2', 'libkrb5-3', 'libk5crypto3', 'libkrb5support0', 'libldap-2.5-0', 'libsasl2-2', 'libsasl2-modules-db', 'libssl3', 'openssl',
        'libedit2', 'libbsd0', 'libmd0', 'libpopt0', 'logrotate', 'cron', 'cron-daemon-common', 'libreadline8', 'readline-common', 'libncursesw6',
        'libtinfo6', 'libgdbm6', 'libperl5.36', 'perl', 'perl-modules-5.36', 'libgdbm-compat4', 'libdb5.3', 'liburing2', 'libnuma1', 'libzstd1',
        'liblz4-1', 'libselinux1', 'libpcre2-8-0', 'libaudit1', 'libcap-ng0', 'libsystemd0', 'libudev1', 'libgcrypt20', 'libgpg-error0']

CONF_KEYS = []
for _k, (_n, _d, _c, _v) in enumerate([('listen_addresses', "'localhost'", 'what IP address(es) to listen on', "'*'"), ('max_connections', '100', '(change requires restart)', '300'),
        ('shared_buffers', '128MB', 'min 128kB', '2GB'), ('effective_cache_size', '4GB', '', '6GB'), ('work_mem', '4MB', 'min 64kB', '16MB'),
        ('maintenance_work_mem', '64MB', 'min 1MB', '512MB'), ('wal_level', 'replica', 'minimal, replica, or logical', 'replica'),
        ('max_wal_senders', '10', 'max number of walsender processes', '10'), ('wal_keep_size', '0', 'in megabytes; 0 disables', '1GB'),
        ('max_replication_slots', '10', 'max number of replication slots', '10'), ('hot_standby', 'on', '"off" disallows queries during recovery', 'on'),
        ('ssl', 'off', '', 'on'), ('ssl_cert_file', "'server.crt'", '', "'/etc/postgresql/ssl/server.crt'"), ('ssl_key_file', "'server.key'", '', "'/etc/postgresql/ssl/server.key'"),
        ('ssl_ca_file', "''", '', "'/etc/postgresql/ssl/root.crt'"), ('password_encryption', 'scram-sha-256', 'scram-sha-256 or md5', 'scram-sha-256'),
        ('log_line_prefix', "'%m [%p] '", 'special values:', "'%m [%p] %q%u@%d '"), ('log_checkpoints', 'on', '', 'on'), ('log_connections', 'off', '', 'on'),
        ('log_disconnections', 'off', '', 'on'), ('log_lock_waits', 'off', 'log lock waits >= deadlock_timeout', 'on'), ('log_temp_files', '-1', 'log temporary files equal or larger', '0'),
        ('checkpoint_timeout', '5min', 'range 30s-1d', '15min'), ('max_wal_size', '1GB', '', '4GB'), ('min_wal_size', '80MB', '', '1GB'),
        ('random_page_cost', '4.0', 'measured on an arbitrary scale', '1.1'), ('effective_io_concurrency', '1', '1-1000; 0 disables prefetching', '200'),
        ('default_statistics_target', '100', 'range 1-10000', '100'), ('archive_mode', 'off', 'enables archiving; off, on, or always', 'on'),
        ('archive_command', "''", 'command to use to archive a WAL file', "'wal-g wal-push %p'"), ('timezone', "'Etc/UTC'", '', "'UTC'"),
        ('shared_preload_libraries', "''", '(change requires restart)', "'pg_stat_statements'"), ('track_io_timing', 'off', '', 'on'),
        ('autovacuum_max_workers', '3', 'max number of autovacuum subprocesses', '4'), ('autovacuum_naptime', '1min', 'time between autovacuum runs', '30s'),
        ('idle_in_transaction_session_timeout', '0', 'in milliseconds, 0 is disabled', '10min'), ('statement_timeout', '0', 'in milliseconds, 0 is disabled', '0'),
        ('lc_messages', "'C'", 'locale for system error message', "'en_US.UTF-8'"), ('datestyle', "'iso, mdy'", '', "'iso, mdy'"), ('jit', 'on', 'allow JIT compilation', 'off')]):
    CONF_KEYS.append((_n, _d, _c, _v))

def converge_log(fail_verify_msg=None, slot_ok=True, rounds=1, verbose=False):
    out = []
    out.append('INFO     replication scenario test matrix: dependency, cleanup, destroy, syntax, create, prepare, converge, idempotence, side_effect, verify, cleanup, destroy')
    out.append('INFO     Performing prerun with role_name_check=0...')
    out.append('INFO     Running replication > dependency')
    out.append('Starting galaxy collection install process')
    out.append('Nothing to do. All requested collections are already installed. If you want to reinstall them, consider using `--force`.')
    out.append('INFO     Running replication > destroy')
    out.append('INFO     Running replication > syntax')
    out.append('')
    out.append('playbook: /home/ops/pg-infra/molecule/replication/converge.yml')
    out.append('INFO     Running replication > create')
    for h in HOSTS:
        out.append('changed: [localhost] => (item=%s)' % h)
    out.append('INFO     Running replication > converge')
    out.append('')
    tasks_common = ['Gathering Facts', 'postgresql_common : Install PGDG signing key', 'postgresql_common : Add PGDG apt repository',
                    'postgresql_common : Install PostgreSQL packages', 'postgresql_common : Ensure locale en_US.UTF-8 exists',
                    'postgresql_common : Create conf.d directory', 'postgresql_common : Template postgresql.conf',
                    'postgresql_common : Template pg_hba.conf', 'postgresql_common : Install TLS certificates',
                    'postgresql_common : Ensure cluster is started', 'postgresql_common : Set kernel parameters']
    tasks_primary = ['postgresql_primary : Template 10-primary.conf', 'postgresql_primary : Create replication role',
                     'postgresql_primary : Create physical replication slots', 'postgresql_primary : Reload PostgreSQL',
                     'postgresql_primary : Wait for primary to accept connections']
    tasks_replica = ['postgresql_replica : Stop PostgreSQL before base backup', 'postgresql_replica : Check whether standby.signal exists',
                     'postgresql_replica : Remove data directory', 'postgresql_replica : Run pg_basebackup',
                     'postgresql_replica : Template 10-replica.conf', 'postgresql_replica : Touch standby.signal',
                     'postgresql_replica : Start PostgreSQL', 'postgresql_replica : Wait for replica socket']
    for r in range(rounds):
        out.append('PLAY [Common PostgreSQL setup] *************************************************')
        for t in tasks_common:
            out.append('')
            out.append('TASK [%s] %s' % (t, '*' * max(3, 70 - len(t))))
            for h in HOSTS:
                st = R.choice(['ok', 'ok', 'changed']) if r == 0 else 'ok'
                out.append('%s: [%s]' % (st, h))
                if t.endswith('Install PostgreSQL packages') and verbose:
                    for pk in PKGS:
                        out.append('    %s: [%s] => (item=%s) %s' % ('changed' if r == 0 else 'ok', h, pk, '=> {"cache_update_time": 1764248102, "cache_updated": false, "changed": %s}' % ('true' if r == 0 else 'false')))
                if t.endswith('Template postgresql.conf') and verbose and r == 0:
                    out.append('--- before: /etc/postgresql/16/main/postgresql.conf')
                    out.append('+++ after: /home/ops/.ansible/tmp/ansible-local-41877x2k/tmp_postgresql.conf.j2')
                    out.append('@@ -1,812 +1,84 @@')
                    for ck in CONF_KEYS:
                        out.append('-#%s = %s		# %s' % (ck[0], ck[1], ck[2]))
                        out.append('+%s = %s' % (ck[0], ck[3]))
                if t.endswith('Add PGDG apt repository') and verbose:
                    for src in ['Hit:1 http://deb.debian.org/debian bookworm InRelease', 'Hit:2 http://deb.debian.org/debian bookworm-updates InRelease',
                                'Hit:3 http://deb.debian.org/debian-security bookworm-security InRelease', 'Get:4 http://apt.postgresql.org/pub/repos/apt bookworm-pgdg InRelease [129 kB]',
                                'Get:5 http://apt.postgresql.org/pub/repos/apt bookworm-pgdg/main amd64 Packages [351 kB]', 'Fetched 480 kB in 1s (412 kB/s)',
                                'Reading package lists...', 'Building dependency tree...', 'Reading state information...', 'All packages are up to date.']:
                        out.append('    ' + src)
                if t.endswith('Set kernel parameters') and verbose:
                    for kp in ['vm.swappiness=1', 'vm.overcommit_memory=2', 'vm.dirty_background_ratio=5', 'vm.dirty_ratio=10', 'kernel.shmmax=8589934592', 'kernel.shmall=2097152', 'net.core.somaxconn=1024', 'vm.nr_hugepages=0', 'fs.file-max=2097152', 'net.ipv4.tcp_keepalive_time=60']:
                        out.append('    ok: [%s] => (item=%s)' % (h, kp))
                if R.random() < 0.25:
                    out.append('    "msg": "All items completed", "results": [{"ansible_loop_var": "item", "changed": false, "item": "%s"}]' % R.choice(['postgresql-16', 'postgresql-client-16', 'python3-psycopg2', 'acl']))
        out.append('')
        out.append('PLAY [Configure primary] *******************************************************')
        for t in tasks_primary:
            out.append('')
            out.append('TASK [%s] %s' % (t, '*' * max(3, 70 - len(t))))
            if 'slots' in t:
                for h in HOSTS[1:]:
                    out.append('changed: [pg-primary] => (item=%s)' % h.replace('-', '_'))
            else:
                out.append('%s: [pg-primary]' % R.choice(['ok', 'changed']))
        out.append('')
        out.append('PLAY [Configure replicas] ******************************************************')
        for t in tasks_replica:
            out.append('')
            out.append('TASK [%s] %s' % (t, '*' * max(3, 70 - len(t))))
            for h in HOSTS[1:]:
                out.append('changed: [%s]' % h)
                if 'basebackup' in t:
                    for k in range(30 if verbose else 12):
                        out.append('    waiting for checkpoint ... %d/%d kB (%d%%), 0/1 tablespace' % (k * 2450, 29400, k * 100 // (30 if verbose else 12)))
        out.append('')
        out.append('PLAY RECAP *********************************************************************')
        out.append('pg-primary                 : ok=16   changed=7    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0')
        out.append('pg-replica-1               : ok=19   changed=9    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0')
        out.append('pg-replica-2               : ok=19   changed=9    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0')
        out.append('')
    out.append('INFO     Running replication > idempotence')
    out.append('INFO     Idempotence completed successfully.')
    out.append('INFO     Running replication > side_effect')
    out.append('WARNING  Skipping, side effect playbook not configured.')
    out.append('INFO     Running replication > verify')
    out.append('INFO     Running Ansible Verifier')
    out.append('')
    out.append('PLAY [Verify streaming replication] ********************************************')
    out.append('')
    out.append('TASK [Query pg_stat_replication on primary] ************************************')
    out.append('ok: [pg-primary]')
    out.append('')
    out.append('TASK [Query pg_stat_wal_receiver on replicas] **********************************')
    out.append('ok: [pg-replica-1]')
    out.append('ok: [pg-replica-2]')
    out.append('')
    out.append('TASK [Assert replica is streaming from primary] ********************************')
    for h in HOSTS[1:]:
        out.append('fatal: [%s]: FAILED! => {' % h)
        out.append('    "assertion": "wal_receiver.query_result | length == 1",')
        out.append('    "changed": false,')
        out.append('    "evaluated_to": false,')
        out.append('    "msg": "%s"' % fail_verify_msg.replace('HOST', h))
        out.append('}')
    out.append('')
    out.append('PLAY RECAP *********************************************************************')
    out.append('pg-primary                 : ok=2    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0')
    out.append('pg-replica-1               : ok=2    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0')
    out.append('pg-replica-2               : ok=2    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0')
    out.append('')
    out.append('CRITICAL Ansible return code was 2, command was: ansible-playbook --inventory /home/ops/.cache/molecule/pg-infra/replication/inventory --skip-tags molecule-notest,notest /home/ops/pg-infra/molecule/replication/verify.yml')
    out.append('WARNING  An error occurred during the test sequence action: \'verify\'. Cleaning up.')
    out.append('INFO     Running replication > cleanup')
    out.append('INFO     Running replication > destroy')
    out.append('INFO     Pruning extra files from scenario ephemeral directory')
    return '\n'.join(out)

def pg_log(line, n):
    out = []
    t = datetime.datetime(2026, 11, 27, 13, 9, 14)
    for i in range(n):
        t += datetime.timedelta(seconds=5)
        st = t.strftime('%Y-%m-%d %H:%M:%S.') + '%03d UTC' % R.randint(0, 999)
        out.append('%s [%d] %s' % (st, 4100 + i * 3, line))
        if i % 10 == 0:
            out.append('%s [%d] LOG:  waiting for WAL to become available at 0/3000018' % (st, 612))
    return '\n'.join(out)

def lint_output(specials, n):
    rules = [('fqcn[action-core]', 'Use FQCN for builtin module actions (%s).', ['command', 'template', 'file', 'service', 'copy', 'lineinfile', 'apt', 'stat', 'wait_for']),
             ('name[casing]', 'All names should start with an uppercase letter.', None),
             ('yaml[line-length]', 'Line too long (%s > 160 characters)', ['172', '188', '201', '165']),
             ('risky-file-permissions', 'File permissions unset or incorrect.', None),
             ('no-handler', 'Tasks that run when changed should likely be handlers.', None),
             ('jinja[spacing]', 'Jinja2 spacing could be improved: {{item}} -> {{ item }}', None),
             ('key-order[task]', 'You can improve the task key order to: name, when, block', None),
             ('yaml[truthy]', "Truthy value should be one of [false, true]", None)]
    roles = ['nginx_frontend', 'pgbouncer', 'node_exporter', 'backup_wal_g', 'users', 'firewall', 'patroni_legacy', 'postgres_exporter', 'sysctl', 'chrony']
    out = ['WARNING  Listing %d violation(s) that are fatal' % (n + len(specials))]
    items = []
    for _ in range(n):
        rule, msg, opts = R.choice(rules)
        m = msg % R.choice(opts) if opts else msg
        items.append('%s: %s\nroles/%s/tasks/%s.yml:%d' % (rule, m, R.choice(roles), R.choice(['main', 'install', 'config', 'service']), R.randint(3, 140)))
    for pos, s in specials:
        items.insert(pos, s)
    out += items
    out.append('')
    out.append('Read documentation for instructions on how to ignore specific rule violations.')
    out.append('')
    out.append('# Rule Violation Summary')
    out.append('')
    out.append('  count tag                      profile    rule associated tags')
    for rule, _, _ in rules:
        out.append('  %5d %-24s production %s' % (R.randint(4, 60), rule, 'formatting'))
    out.append('      3 no-changed-when          shared     command-shell, idempotency')
    out.append('      2 var-naming[no-role-prefix] basic    idiom')
    out.append('')
    out.append('Failed: %d failure(s), 0 warning(s) on 212 files. Profile \'production\' was required, but \'min\' profile passed.' % (n + len(specials)))
    return '\n'.join(out)

def grep_vars(n):
    names = ['postgresql_port', 'postgresql_version', 'postgresql_data_dir', 'postgresql_replication_user', 'postgresql_replication_password',
             'postgresql_primary_host', 'postgresql_replication_ssl', 'postgresql_ssl_root_cert', 'postgresql_replication_slot_name',
             'postgresql_hot_standby_feedback', 'postgresql_max_wal_senders', 'postgresql_wal_keep_size']
    files = ['roles/postgresql_common/tasks/main.yml', 'roles/postgresql_common/templates/postgresql.conf.j2', 'roles/postgresql_primary/tasks/main.yml',
             'roles/postgresql_replica/tasks/main.yml', 'roles/pgbouncer/templates/pgbouncer.ini.j2', 'roles/postgres_exporter/templates/env.j2',
             'playbooks/site.yml', 'playbooks/failover.yml', 'group_vars/all/postgresql.yml', 'host_vars/pg-primary.yml', 'roles/backup_wal_g/templates/walg.json.j2',
             'molecule/replication/group_vars/all.yml', 'molecule/default/converge.yml']
    out = []
    for _ in range(n):
        v = R.choice(names)
        out.append('%s:%d:%s' % (R.choice(files), R.randint(2, 180), R.choice(['    port: "{{ %s }}"' % v, '{{ %s }}' % v, '      - "{{ %s }}"' % v, '%s: %s' % (v, R.choice(['5432', '16', 'true', '"replicator"'])), '    when: %s | bool' % v])))
    return '\n'.join(out)

def primary_tasks(n):
    out = ['---', '# roles/postgresql_primary/tasks/main.yml']
    i = 0
    while len(out) < n:
        i += 1
        out += ['- name: Primary step %d (%s)' % (i, R.choice(['tune wal', 'create role', 'configure archive', 'set parameters', 'verify extensions'])),
                '  community.postgresql.postgresql_%s:' % R.choice(['set', 'query', 'user', 'ext', 'slot']),
                '    login_unix_socket: /var/run/postgresql',
                '    db: postgres',
                '    name: "{{ %s }}"' % R.choice(['postgresql_replication_user', 'item', 'postgresql_extension']),
                '  become: true',
                '  become_user: postgres',
                '  loop: "{{ groups[\'pg_replicas\'] }}"' if R.random() < 0.3 else '  when: inventory_hostname in groups[\'pg_primary\']',
                '']
    return '\n'.join(out)

# ---------- story ----------
emit('session_meta', {"id": "019a6f1e-2c3b-7d48-9e0a-5b1c7f3e8d22", "timestamp": "2026-11-27T13:05:00.000Z", "cwd": CWD, "originator": "codex_cli_rs",
                      "cli_version": "0.58.0", "instructions": None, "source": "cli", "model_provider": "openai",
                      "git": {"commit_hash": "b73e0c4", "branch": "fix/replica-streaming", "repository_url": "git@gitlab.internal:dbops/pg-infra.git"}})
emit('response_item', {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n  <cwd>%s</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>enabled</network_access>\n  <shell>bash</shell>\n</environment_context>" % CWD}]})
emit('turn_context', {"cwd": CWD, "approval_policy": "on-request", "sandbox_policy": {"mode": "workspace-write", "network_access": True}, "model": "gpt-5-codex", "effort": "medium", "summary": "auto"})
user("`molecule test -s replication` fails: the replicas come up but never stream from the primary. Please find and fix it.\n\n"
     "Constraints:\n- Don't rename anything in group_vars/all/postgresql.yml or the inventory groups pg_primary / pg_replicas; the failover and backup playbooks in other repos consume them.\n"
     "- Use community.postgresql modules, no `shell: psql ...`.\n- ansible-lint must stay clean with our current profile (moderate, see .ansible-lint) and don't add new noqa comments.")
reason("**Inspecting the molecule scenario and roles**")
sh('ls && cat .ansible-lint && cat molecule/replication/molecule.yml', """ansible.cfg
collections
group_vars
host_vars
inventories
molecule
playbooks
requirements.yml
roles
README.md
---
profile: moderate
exclude_paths:
  - .cache/
  - collections/
  - molecule/*/files/
warn_list:
  - experimental
---
dependency:
  name: galaxy
  options:
    requirements-file: requirements.yml
driver:
  name: docker
platforms:
  - name: pg-primary
    image: geerlingguy/docker-debian12-ansible:latest
    pre_build_image: true
    privileged: true
    command: /lib/systemd/systemd
    groups: [pg_primary]
    networks: [{name: pgnet}]
  - name: pg-replica-1
    image: geerlingguy/docker-debian12-ansible:latest
    pre_build_image: true
    privileged: true
    command: /lib/systemd/systemd
    groups: [pg_replicas]
    networks: [{name: pgnet}]
  - name: pg-replica-2
    image: geerlingguy/docker-debian12-ansible:latest
    pre_build_image: true
    privileged: true
    command: /lib/systemd/systemd
    groups: [pg_replicas]
    networks: [{name: pgnet}]
provisioner:
  name: ansible
  inventory:
    links:
      group_vars: ../../group_vars/
verifier:
  name: ansible""")
token_count()
sh('cat roles/postgresql_replica/handlers/main.yml roles/postgresql_replica/meta/main.yml', '''---
- name: Restart PostgreSQL
  ansible.builtin.systemd:
    name: postgresql@16-main
    state: restarted
---
galaxy_info:
  role_name: postgresql_replica
  author: dbops
  min_ansible_version: "2.15"
dependencies:
  - role: postgresql_common''', enc='text')
sh('ls roles/*/ && git log --oneline -8', """roles/backup_wal_g/:
defaults  tasks  templates
roles/postgresql_common/:
defaults  handlers  tasks  templates
roles/postgresql_primary/:
defaults  handlers  tasks  templates
roles/postgresql_replica/:
defaults  handlers  meta  tasks  templates
roles/pgbouncer/:
defaults  handlers  tasks  templates
b73e0c4 replica: make SSL for replication optional (DBOPS-733)
91d2a0f primary: create one physical slot per replica
4c0e8b7 common: pg 16
e21f9a3 ci: molecule replication scenario
7a6d2c0 lint: moderate profile
30b1fe8 pgbouncer: auth_query
1d5e4a9 exporter: 0.15
c8f7a61 initial import""", enc='text')
reason("**Running the scenario to see the failure**")
sh('molecule test -s replication 2>&1 | tail -n 40', """INFO     replication scenario test matrix: dependency, cleanup, destroy, syntax, create, prepare, converge, idempotence, side_effect, verify, cleanup, destroy
INFO     Running replication > create

PLAY [Create] ******************************************************************

TASK [Create molecule instance(s)] *********************************************
failed: [localhost] (item=pg-primary) => {"ansible_loop_var": "item", "changed": false, "item": {"name": "pg-primary"}, "msg": "Error creating container: 409 Client Error for http+docker://localhost/v1.45/containers/create?name=pg-primary: Conflict (\\"Conflict. The container name \\"/pg-primary\\" is already in use by container \\"3e1f0c9a7b52\\". You have to remove (or rename) that container to be able to reuse that name.\\")"}

PLAY RECAP *********************************************************************
localhost                  : ok=2    changed=0    unreachable=0    failed=1    skipped=2    rescued=0    ignored=0

CRITICAL Ansible return code was 2, command was: ansible-playbook --inventory /home/ops/.cache/molecule/pg-infra/replication/inventory --skip-tags molecule-notest,notest /home/ops/.local/lib/python3.11/site-packages/molecule_plugins/docker/playbooks/create.yml""", code=1)
say("A leftover `pg-primary` container from an earlier run blocks `create`. I'll destroy the scenario and rerun.")
sh('molecule destroy -s replication 2>&1 | tail -n 5 && docker ps -a --filter name=pg- --format "{{.Names}} {{.Status}}"', "INFO     Running replication > destroy\nchanged: [localhost] => (item=pg-primary)\nchanged: [localhost] => (item=pg-replica-1)\nchanged: [localhost] => (item=pg-replica-2)\nINFO     Pruning extra files from scenario ephemeral directory", enc='text')
token_count()
VERIFY_MSG = "Replica HOST is not streaming: pg_stat_wal_receiver returned 0 rows (expected status=streaming)"
conv1 = converge_log(VERIFY_MSG, rounds=2, verbose=True)
sh('molecule test -s replication -- -v 2>&1', conv1, code=1, dur=412.7)
token_count()
reason("**Converge and idempotence pass; verify fails on the streaming assertion**")
say("Converge and idempotence pass; only verify fails: `TASK [Assert replica is streaming from primary]` → `pg_stat_wal_receiver returned 0 rows` on both replicas. I'll keep the containers alive and read the replica's PostgreSQL log.")
sh('molecule converge -s replication 2>&1 | tail -n 6', "PLAY RECAP *********************************************************************\npg-primary                 : ok=16   changed=7    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0\npg-replica-1               : ok=19   changed=9    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0\npg-replica-2               : ok=19   changed=9    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0", dur=301.2)
ERR1 = 'FATAL:  could not connect to the primary server: invalid integer value "5432sslmode=verify-full" for connection option "port"'
sh('docker exec pg-replica-1 tail -n 120 /var/log/postgresql/postgresql-16-main.log', pg_log(ERR1, 110), enc='text')
reason("**libpq sees port=5432sslmode=verify-full: the space between port and sslmode is lost when rendering conninfo**")
say("The replica log repeats:\n\n`%s`\n\nso `primary_conninfo` is rendered without a space between the port and `sslmode`. First I'll rule out pg_hba on the primary, then look at the replica template." % ERR1)
sh('cat roles/postgresql_common/templates/pg_hba.conf.j2', """# {{ ansible_managed }}
# TYPE  DATABASE        USER            ADDRESS                 METHOD
local   all             postgres                                peer
local   all             all                                     scram-sha-256
host    all             all             127.0.0.1/32            scram-sha-256
host    all             all             ::1/128                 scram-sha-256
{% for host in groups['pg_replicas'] %}
hostssl replication     {{ postgresql_replication_user }}      {{ hostvars[host].ansible_default_ipv4.address }}/32     scram-sha-256
{% if not postgresql_replication_ssl | bool %}
host    replication     {{ postgresql_replication_user }}      {{ hostvars[host].ansible_default_ipv4.address }}/32     scram-sha-256
{% endif %}
{% endfor %}""")
sh('docker exec pg-primary tail -n 5 /var/log/postgresql/postgresql-16-main.log', "2026-11-27 13:10:02.118 UTC [7731] LOG:  checkpoint starting: time\n2026-11-27 13:10:02.409 UTC [7731] LOG:  checkpoint complete: wrote 3 buffers (0.0%); 0 WAL file(s) added, 0 removed, 0 recycled; write=0.203 s, sync=0.011 s, total=0.292 s\n2026-11-27 13:12:40.551 UTC [8120] LOG:  connection received: host=[local]\n2026-11-27 13:12:40.553 UTC [8120] LOG:  connection authorized: user=postgres database=postgres application_name=ansible", enc='text')
say("pg_hba is fine and the primary never even sees a connection attempt, consistent with libpq rejecting the conninfo client-side.")
TEMPLATE = """# {{ ansible_managed }}
# Replica settings for {{ inventory_hostname }}
hot_standby = on
hot_standby_feedback = {{ postgresql_hot_standby_feedback | ternary('on', 'off') }}
wal_receiver_timeout = {{ wal_receiver_timeout }}
wal_retrieve_retry_interval = 5s
recovery_target_timeline = 'latest'

primary_slot_name = '{{ inventory_hostname }}'

# DBOPS-733: SSL for replication is optional (off in the lab, on in prod).
# Keep everything on one line, libpq conninfo is a single string.
primary_conninfo = 'host={{ postgresql_primary_host }} port={{ postgresql_port }} {%- if postgresql_replication_ssl | bool %}sslmode=verify-full sslrootcert={{ postgresql_ssl_root_cert }}{% endif %} user={{ postgresql_replication_user }} passfile=/var/lib/postgresql/.pgpass application_name={{ inventory_hostname | replace('-', '_') }}'
"""
sh('cat -n roles/postgresql_replica/templates/replica.conf.j2', '\n'.join('%6d\t%s' % (i + 1, l) for i, l in enumerate(TEMPLATE.rstrip('\n').split('\n'))))
sh("docker exec pg-replica-1 cat /etc/postgresql/16/main/conf.d/10-replica.conf | sed -n 9,14p", """primary_slot_name = 'pg-replica-1'

# DBOPS-733: SSL for replication is optional (off in the lab, on in prod).
# Keep everything on one line, libpq conninfo is a single string.
primary_conninfo = 'host=pg-primary port=5432sslmode=verify-full sslrootcert=/etc/postgresql/ssl/root.crt user=replicator passfile=/var/lib/postgresql/.pgpass application_name=pg_replica_1'""", enc='text')
reason("**`{%-` strips the space before the if block — the DBOPS-733 change introduced it**")
say("Found the Jinja2 bug. Line 13 of roles/postgresql_replica/templates/replica.conf.j2 has `port={{ postgresql_port }} {%- if postgresql_replication_ssl | bool %}sslmode=...`: the `{%-` whitespace control eats the space before the `if`, so the rendered line becomes `port=5432sslmode=verify-full`. That came in with b73e0c4 (DBOPS-733).")
sh('git show b73e0c4 --stat && git show b73e0c4 -- roles/postgresql_replica/templates/replica.conf.j2 | head -n 30', """commit b73e0c4e51a0f2c9d8b7a6e5f4d3c2b1a0f9e8d7
Author: Jonas Reiter <jreiter@example.internal>
Date:   Tue Nov 25 16:42:10 2026 +0100

    replica: make SSL for replication optional (DBOPS-733)

 group_vars/all/postgresql.yml                           |  2 ++
 roles/postgresql_replica/templates/replica.conf.j2      | 11 ++++++++---
 2 files changed, 10 insertions(+), 3 deletions(-)
diff --git a/roles/postgresql_replica/templates/replica.conf.j2 b/roles/postgresql_replica/templates/replica.conf.j2
@@ -8,4 +8,9 @@ recovery_target_timeline = 'latest'
-primary_conninfo = 'host={{ postgresql_primary_host }} port={{ postgresql_port }} sslmode=verify-full sslrootcert={{ postgresql_ssl_root_cert }} user={{ postgresql_replication_user }} passfile=/var/lib/postgresql/.pgpass application_name={{ inventory_hostname | replace('-', '_') }}'
+primary_slot_name = '{{ inventory_hostname }}'
+
+# DBOPS-733: SSL for replication is optional (off in the lab, on in prod).
+# Keep everything on one line, libpq conninfo is a single string.
+primary_conninfo = 'host={{ postgresql_primary_host }} port={{ postgresql_port }} {%- if postgresql_replication_ssl | bool %}sslmode=verify-full sslrootcert={{ postgresql_ssl_root_cert }}{% endif %} user={{ postgresql_replication_user }} passfile=/var/lib/postgresql/.pgpass application_name={{ inventory_hostname | replace('-', '_') }}'""", enc='text')
sh('cat group_vars/all/postgresql.yml', """---
# Consumed by playbooks/failover.yml and the dbops/backup repo. Do not rename keys.
postgresql_version: 16
postgresql_port: 5432
postgresql_data_dir: /var/lib/postgresql/16/main
postgresql_primary_host: "{{ groups['pg_primary'][0] }}"
postgresql_replication_user: replicator
postgresql_replication_password: "{{ vault_postgresql_replication_password }}"
postgresql_replication_ssl: true
postgresql_ssl_root_cert: /etc/postgresql/ssl/root.crt
postgresql_replication_slot_name: "{{ inventory_hostname | replace('-', '_') }}"
postgresql_hot_standby_feedback: true
postgresql_max_wal_senders: 10
postgresql_wal_keep_size: 1GB""")
token_count()
reason("**Conninfo via postgresql.auto.conf would avoid the long templated line**")
say("Rather than keep a fragile one-line Jinja conditional, I'll move `primary_conninfo` out of the template and manage it as a key in postgresql.auto.conf with `lineinfile`, building the string in a `set_fact` where the optional SSL part is easier to read.")
patch("""*** Update File: roles/postgresql_replica/templates/replica.conf.j2
@@
-# DBOPS-733: SSL for replication is optional (off in the lab, on in prod).
-# Keep everything on one line, libpq conninfo is a single string.
-primary_conninfo = 'host={{ postgresql_primary_host }} port={{ postgresql_port }} {%- if postgresql_replication_ssl | bool %}sslmode=verify-full sslrootcert={{ postgresql_ssl_root_cert }}{% endif %} user={{ postgresql_replication_user }} passfile=/var/lib/postgresql/.pgpass application_name={{ inventory_hostname | replace('-', '_') }}'
+# primary_conninfo is managed in postgresql.auto.conf (tasks/main.yml)
*** Update File: roles/postgresql_replica/tasks/main.yml
@@
 - name: Template 10-replica.conf
   ansible.builtin.template:
     src: replica.conf.j2
     dest: /etc/postgresql/{{ postgresql_version }}/main/conf.d/10-replica.conf
     owner: postgres
     group: postgres
     mode: "0640"
   notify: Restart PostgreSQL
+
+- name: Build primary_conninfo
+  ansible.builtin.set_fact:
+    postgresql_replica_conninfo: >-
+      host={{ postgresql_primary_host }} port={{ postgresql_port }}
+      {{ ('sslmode=verify-full sslrootcert=' ~ postgresql_ssl_root_cert) if postgresql_replication_ssl | bool else '' }}
+      user={{ postgresql_replication_user }} passfile=/var/lib/postgresql/.pgpass
+      application_name={{ inventory_hostname | replace('-', '_') }}
+
+- name: Set primary_conninfo in postgresql.auto.conf
+  ansible.builtin.lineinfile:
+    path: "{{ postgresql_data_dir }}/postgresql.auto.conf"
+    regexp: "^primary_conninfo ="
+    line: "primary_conninfo = '{{ postgresql_replica_conninfo }}'"
+    owner: postgres
+    mode: "0600"
+  notify: Restart PostgreSQL""", ['roles/postgresql_replica/templates/replica.conf.j2', 'roles/postgresql_replica/tasks/main.yml'])
sh('molecule converge -s replication 2>&1 | tail -n 8', "TASK [postgresql_replica : Set primary_conninfo in postgresql.auto.conf] *******\nchanged: [pg-replica-1]\nchanged: [pg-replica-2]\n\nPLAY RECAP *********************************************************************\npg-primary                 : ok=16   changed=0    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0\npg-replica-1               : ok=21   changed=3    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0\npg-replica-2               : ok=21   changed=3    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0", dur=88.4)
sh("docker exec pg-replica-1 grep primary_conninfo /var/lib/postgresql/16/main/postgresql.auto.conf", "primary_conninfo = 'user=replicator passfile=''/var/lib/postgresql/.pgpass'' channel_binding=prefer host=pg-primary port=5432 sslmode=prefer sslcompression=0 sslcertmode=allow sslsni=1 ssl_min_protocol_version=TLSv1.2 gssencmode=prefer krbsrvname=postgres gssdelegation=0 target_session_attrs=any load_balance_hosts=disable'\nprimary_conninfo = 'host=pg-primary port=5432 sslmode=verify-full sslrootcert=/etc/postgresql/ssl/root.crt user=replicator passfile=/var/lib/postgresql/.pgpass application_name=pg_replica_1'", enc='text')
say("Converge applied it, but note postgresql.auto.conf already has a `primary_conninfo` written by `pg_basebackup -R`; my regexp replaced only the first match so there are now two lines. I'll tighten the regexp and make it run after the base backup.")
user("No, don't go that way. postgresql.auto.conf is owned by pg_basebackup -R and ALTER SYSTEM; we don't edit it from Ansible. Revert that and keep primary_conninfo in roles/postgresql_replica/templates/replica.conf.j2 — fix the template itself.")
reason("**Reverting the auto.conf approach**")
say("Reverting the lineinfile/set_fact change and going back to the template.")
sh('git checkout -- roles/postgresql_replica/templates/replica.conf.j2 roles/postgresql_replica/tasks/main.yml && git status --short', '', enc='text')
sh("molecule converge -s replication 2>&1 | tail -n 4 && docker exec pg-replica-1 sed -i '/^primary_conninfo = .host=pg-primary/d' /var/lib/postgresql/16/main/postgresql.auto.conf", "PLAY RECAP *********************************************************************\npg-primary                 : ok=16   changed=0    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0\npg-replica-1               : ok=19   changed=1    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0\npg-replica-2               : ok=19   changed=1    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0", dur=79.0)
say("Containers are back to the templated config (I also removed the stray line my lineinfile had added inside the container). Now the template fix: drop the `-` so no whitespace is stripped, and put the separating space inside the conditional so the non-SSL case doesn't get a double space.")
patch("""*** Update File: roles/postgresql_replica/templates/replica.conf.j2
@@
-primary_conninfo = 'host={{ postgresql_primary_host }} port={{ postgresql_port }} {%- if postgresql_replication_ssl | bool %}sslmode=verify-full sslrootcert={{ postgresql_ssl_root_cert }}{% endif %} user={{ postgresql_replication_user }} passfile=/var/lib/postgresql/.pgpass application_name={{ inventory_hostname | replace('-', '_') }}'
+primary_conninfo = 'host={{ postgresql_primary_host }} port={{ postgresql_port }}{% if postgresql_replication_ssl | bool %} sslmode=verify-full sslrootcert={{ postgresql_ssl_root_cert }}{% endif %} user={{ postgresql_replication_user }} passfile=/var/lib/postgresql/.pgpass application_name={{ inventory_hostname | replace('-', '_') }}'""", ['roles/postgresql_replica/templates/replica.conf.j2'])
emit('response_item', {"type": "ghost_snapshot", "ghost_commit": {"id": "5d2a9e1", "parent": "b73e0c4"}})
sh("ansible -i inventories/lab localhost -m ansible.builtin.debug -a \"msg={{ lookup('ansible.builtin.template', 'roles/postgresql_replica/templates/replica.conf.j2') }}\" -e inventory_hostname=pg-replica-1 -e postgresql_replication_ssl=false -e wal_receiver_timeout=60s 2>&1 | grep primary_conninfo", """    "msg": "# Ansible managed\\n# Replica settings for pg-replica-1\\nhot_standby = on\\nhot_standby_feedback = on\\nwal_receiver_timeout = 60s\\nwal_retrieve_retry_interval = 5s\\nrecovery_target_timeline = 'latest'\\n\\nprimary_slot_name = 'pg-replica-1'\\n\\n# DBOPS-733: SSL for replication is optional (off in the lab, on in prod).\\n# Keep everything on one line, libpq conninfo is a single string.\\nprimary_conninfo = 'host=pg-primary port=5432 user=replicator passfile=/var/lib/postgresql/.pgpass application_name=pg_replica_1'\\n\"""", enc='text')
say("Rendering with SSL off gives `port=5432 user=replicator` (single space). Now a real converge with SSL on.")
sh('molecule converge -s replication 2>&1 | tail -n 4', "PLAY RECAP *********************************************************************\npg-primary                 : ok=16   changed=0    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0\npg-replica-1               : ok=19   changed=2    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0\npg-replica-2               : ok=19   changed=2    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0", dur=84.9)
ERR2 = 'FATAL:  could not start WAL streaming: ERROR:  replication slot "pg-replica-1" does not exist'
sh('docker exec pg-replica-1 tail -n 80 /var/log/postgresql/postgresql-16-main.log', pg_log(ERR2, 70))
token_count()
reason("**Conninfo fixed; now the slot name doesn't match — primary creates pg_replica_1, replica asks for pg-replica-1**")
sh("docker exec -u postgres pg-primary psql -Atc 'select slot_name, active from pg_replication_slots'", "pg_replica_1|f\npg_replica_2|f", enc='text')
say("The conninfo error is gone; the replica now connects but fails with:\n\n`%s`\n\nThe primary created the slots as `pg_replica_1`/`pg_replica_2` (from `postgresql_replication_slot_name`, hyphens replaced since slot names only allow `[a-z0-9_]`), but line 9 of the template hardcodes `primary_slot_name = '{{ inventory_hostname }}'`. It must use `{{ postgresql_replication_slot_name }}` instead." % ERR2)
sh('cat molecule/replication/verify.yml', '''---
- name: Verify streaming replication
  hosts: all
  gather_facts: false
  become: true
  become_user: postgres
  tasks:
    - name: Query pg_stat_replication on primary
      community.postgresql.postgresql_query:
        query: SELECT application_name, state, sync_state FROM pg_stat_replication
      register: repl
      when: inventory_hostname in groups['pg_primary']

    - name: Query pg_stat_wal_receiver on replicas
      community.postgresql.postgresql_query:
        query: SELECT status, slot_name, sender_host FROM pg_stat_wal_receiver
      register: wal_receiver
      when: inventory_hostname in groups['pg_replicas']

    - name: Assert replica is streaming from primary
      ansible.builtin.assert:
        that:
          - wal_receiver.query_result | length == 1
          - wal_receiver.query_result[0].status == 'streaming'
          - wal_receiver.query_result[0].slot_name == postgresql_replication_slot_name
        fail_msg: "Replica {{ inventory_hostname }} is not streaming: pg_stat_wal_receiver returned {{ wal_receiver.query_result | length }} rows (expected status=streaming)"
      when: inventory_hostname in groups['pg_replicas']''', enc='text')
say("verify.yml also asserts `slot_name == postgresql_replication_slot_name`, so the template must use exactly that variable. Let me confirm the current state with verify alone a couple of times (the receiver retries every 5s).")
VER = '''INFO     Running replication > verify
INFO     Running Ansible Verifier

PLAY [Verify streaming replication] ********************************************

TASK [Query pg_stat_replication on primary] ************************************
ok: [pg-primary]
skipping: [pg-replica-1]
skipping: [pg-replica-2]

TASK [Query pg_stat_wal_receiver on replicas] **********************************
skipping: [pg-primary]
ok: [pg-replica-1]
ok: [pg-replica-2]

TASK [Assert replica is streaming from primary] ********************************
skipping: [pg-primary]
fatal: [pg-replica-1]: FAILED! => {"assertion": "wal_receiver.query_result | length == 1", "changed": false, "evaluated_to": false, "msg": "Replica pg-replica-1 is not streaming: pg_stat_wal_receiver returned 0 rows (expected status=streaming)"}
fatal: [pg-replica-2]: FAILED! => {"assertion": "wal_receiver.query_result | length == 1", "changed": false, "evaluated_to": false, "msg": "Replica pg-replica-2 is not streaming: pg_stat_wal_receiver returned 0 rows (expected status=streaming)"}

PLAY RECAP *********************************************************************
pg-primary                 : ok=1    changed=0    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0
pg-replica-1               : ok=1    changed=0    unreachable=0    failed=1    skipped=1    rescued=0    ignored=0
pg-replica-2               : ok=1    changed=0    unreachable=0    failed=1    skipped=1    rescued=0    ignored=0

CRITICAL Ansible return code was 2, command was: ansible-playbook --inventory /home/ops/.cache/molecule/pg-infra/replication/inventory --skip-tags molecule-notest,notest /home/ops/pg-infra/molecule/replication/verify.yml'''
for i in range(3):
    sh('molecule verify -s replication 2>&1', VER, code=1, dur=round(9.1 + i * 0.3, 1))
say("Same result three times, as expected until the slot name is fixed.")
sh('grep -rn "postgresql_\\w*" roles playbooks group_vars host_vars molecule', grep_vars(330), enc='text')
sh('cat roles/postgresql_primary/tasks/main.yml', primary_tasks(260))
sh('ansible-galaxy collection list && pip list 2>/dev/null | grep -Ei "ansible|molecule|docker|jinja|psycopg"', """
# /home/ops/pg-infra/collections/ansible_collections
Collection            Version
--------------------- -------
community.docker      3.12.1
community.general     9.4.0
community.postgresql  3.5.0
ansible.posix         1.6.1

# /home/ops/.local/lib/python3.11/site-packages/ansible_collections
Collection                               Version
---------------------------------------- -------
amazon.aws                               8.2.1
ansible.netcommon                        6.1.3
ansible.posix                            1.5.4
ansible.utils                            4.1.0
ansible.windows                          2.5.0
arista.eos                               9.0.0
awx.awx                                  24.6.1
azure.azcollection                       2.7.0
check_point.mgmt                         5.2.3
chocolatey.chocolatey                    1.5.1
cisco.aci                                2.10.1
cisco.asa                                5.0.1
cisco.dnac                               6.20.0
cisco.intersight                         2.0.12
cisco.ios                                9.0.3
cisco.iosxr                              10.2.1
cisco.ise                                2.9.3
cisco.meraki                             2.18.1
cisco.mso                                2.9.0
cisco.nxos                               8.1.0
cisco.ucs                                1.14.0
cloud.common                             3.0.0
cloudscale_ch.cloud                      2.4.0
community.aws                            8.0.0
community.ciscosmb                       1.0.9
community.crypto                         2.22.0
community.digitalocean                   1.27.0
community.dns                            3.0.4
community.docker                         3.12.1
community.general                        9.4.0
community.grafana                        1.9.1
community.hashi_vault                    6.2.0
community.hrobot                         2.0.1
community.library_inventory_filtering_v1 1.0.1
community.libvirt                        1.3.0
community.mongodb                        1.7.6
community.mysql                          3.10.3
community.network                        5.0.3
community.okd                            3.0.1
community.postgresql                     3.5.0
community.proxysql                       1.6.0
community.rabbitmq                       1.3.0
community.routeros                       2.19.0
community.sap_libs                       1.4.2
community.sops                           1.9.1
community.vmware                         4.7.0
community.windows                        2.3.0
community.zabbix                         2.5.1
containers.podman                        1.16.1
cyberark.conjur                          1.3.0
cyberark.pas                             1.0.27
dellemc.enterprise_sonic                 2.5.1
dellemc.openmanage                       9.6.0
dellemc.powerflex                        2.5.0
dellemc.unity                            2.0.0
f5networks.f5_modules                    1.30.1
fortinet.fortimanager                    2.7.0
fortinet.fortios                         2.3.7
frr.frr                                  2.0.2
google.cloud                             1.4.1
grafana.grafana                          5.5.0
hetzner.hcloud                           3.1.1
ibm.qradar                               3.0.0
ibm.spectrum_virtualize                  2.0.0
ibm.storage_virtualize                   2.4.1
infinidat.infinibox                      1.4.5
infoblox.nios_modules                    1.6.1
inspur.ispim                             2.2.3
junipernetworks.junos                    8.0.0
kaytus.ksmanage                          1.2.2
kubernetes.core                          3.2.0
kubevirt.core                            1.5.0
lowlydba.sqlserver                       2.3.3
microsoft.ad                             1.6.0
netapp.cloudmanager                      21.24.0
netapp.ontap                             22.12.0
netapp.storagegrid                       21.13.0
netbox.netbox                            3.19.1
ngine_io.cloudstack                      2.4.0
openstack.cloud                          2.2.0
ovirt.ovirt                              3.2.0
purestorage.flasharray                   1.30.2
purestorage.flashblade                   1.18.0
sensu.sensu_go                           1.14.0
splunk.es                                3.0.0
t_systems_mms.icinga_director            2.0.1
telekom_mms.icinga_director              2.1.2
theforeman.foreman                       4.2.0
vmware.vmware                            1.5.0
vmware.vmware_rest                       3.1.0
vultr.cloud                              1.13.0
vyos.vyos                                4.1.0
wti.remote                               1.0.10
ansible                    10.4.0
ansible-compat             24.9.1
ansible-core               2.17.4
ansible-lint               24.9.2
docker                     7.1.0
Jinja2                     3.1.4
molecule                   24.9.0
molecule-plugins           23.5.3
psycopg2-binary            2.9.9""", enc='text')
say("community.postgresql 3.5.0 from the project collections path is what molecule uses, Jinja2 3.1.4. Nothing version-related here. Before fixing line 9 I'll check lint status with the current moderate profile.")
sh('ansible-lint roles/postgresql_replica roles/postgresql_primary', "Passed: 0 failure(s), 0 warning(s) on 18 files. Profile 'moderate' was required, but 'production' profile passed.", enc='text')
user("Change of plan on linting: we're switching CI to the production profile today, so the replication roles must pass ansible-lint --profile production, not moderate. To get there you may rename variables inside roles/postgresql_replica/defaults/main.yml (role prefix) — but group_vars/all/postgresql.yml and the inventory group names stay exactly as they are. No noqa, same as before.")
reason("**New lint target: production profile for the two replication roles; role-default renames allowed, group_vars untouched**")
LINT_SPECIALS = [
    (20, "no-changed-when: Commands should not change things if nothing needs doing.\nroles/postgresql_replica/tasks/main.yml:41 Task/Handler: Check whether standby.signal exists"),
    (95, "var-naming[no-role-prefix]: Variables names from within roles should use postgresql_replica_ as a prefix. (vars: wal_receiver_timeout)\nroles/postgresql_replica/defaults/main.yml:7"),
    (160, "fqcn[action-core]: Use FQCN for builtin module actions (service).\nroles/postgresql_replica/tasks/main.yml:58 Task/Handler: Start PostgreSQL"),
    (230, "risky-file-permissions: File permissions unset or incorrect.\nroles/postgresql_primary/tasks/main.yml:112 Task/Handler: Install replication .pgpass"),
]
sh('ansible-lint --profile production', lint_output(LINT_SPECIALS, 260), code=2, dur=48.3)
token_count()
say("With `--profile production` the whole repo reports ~260 violations, but only four are in the two replication roles, which is the scope you gave:\n\n1. `roles/postgresql_replica/tasks/main.yml:41` no-changed-when (the `command: test -f .../standby.signal` check) → replace with `ansible.builtin.stat` + `when`.\n2. `roles/postgresql_replica/defaults/main.yml:7` var-naming[no-role-prefix] for `wal_receiver_timeout` → rename to `postgresql_replica_wal_receiver_timeout` (also used on line 5 of replica.conf.j2).\n3. `roles/postgresql_replica/tasks/main.yml:58` fqcn[action-core] → `ansible.builtin.service`.\n4. `roles/postgresql_primary/tasks/main.yml:112` risky-file-permissions → add `mode: \"0600\"` to the .pgpass copy.")
sh('sed -n 35,62p roles/postgresql_replica/tasks/main.yml && cat roles/postgresql_replica/defaults/main.yml', """- name: Stop PostgreSQL before base backup
  ansible.builtin.systemd:
    name: postgresql@16-main
    state: stopped
  when: not standby_signal.stat.exists | default(false)

- name: Check whether standby.signal exists
  ansible.builtin.command: test -f {{ postgresql_data_dir }}/standby.signal
  register: standby_signal_cmd
  failed_when: false

- name: Run pg_basebackup
  ansible.builtin.command: >-
    pg_basebackup -h {{ postgresql_primary_host }} -p {{ postgresql_port }}
    -U {{ postgresql_replication_user }} -D {{ postgresql_data_dir }}
    -X stream -R -S {{ postgresql_replication_slot_name }}
  args:
    creates: "{{ postgresql_data_dir }}/standby.signal"
  become: true
  become_user: postgres

- name: Start PostgreSQL
  service:
    name: postgresql@16-main
    state: started
---
# roles/postgresql_replica/defaults/main.yml
postgresql_hot_standby_feedback: true
# seconds; rendered into replica.conf.j2
wal_receiver_timeout: 60s""", enc='text')
say("Starting with the FQCN one, the smallest change.")
patch("""*** Update File: roles/postgresql_replica/tasks/main.yml
@@
 - name: Start PostgreSQL
-  service:
+  ansible.builtin.service:
     name: postgresql@16-main
     state: started""", ['roles/postgresql_replica/tasks/main.yml'])
sh('ansible-lint --profile production roles/postgresql_replica roles/postgresql_primary 2>&1 | tail -n 12', """no-changed-when: Commands should not change things if nothing needs doing.
roles/postgresql_replica/tasks/main.yml:41 Task/Handler: Check whether standby.signal exists

var-naming[no-role-prefix]: Variables names from within roles should use postgresql_replica_ as a prefix. (vars: wal_receiver_timeout)
roles/postgresql_replica/defaults/main.yml:7

risky-file-permissions: File permissions unset or incorrect.
roles/postgresql_primary/tasks/main.yml:112 Task/Handler: Install replication .pgpass

Failed: 3 failure(s), 0 warning(s) on 18 files. Profile 'production' was required, but 'shared' profile passed.""", code=2, enc='text')
say("Three left in scope. Remaining work: line 9 of replica.conf.j2 (`primary_slot_name`), the standby.signal check, the role-prefix rename, and the .pgpass mode; then a full `molecule test -s replication`.")
token_count()
user("I'm off for today. Please finish this within the limits I gave you: the remaining template bug, the lint findings in the two replication roles, and a green `molecule test -s replication` end to end. Leave a short summary of what changed when you're done.")

with open(OUT, 'w') as f:
    for d in lines:
        f.write(json.dumps(d, ensure_ascii=False) + '\n')

FACTS = [
    "Don't rename anything in group_vars/all/postgresql.yml or the inventory groups pg_primary / pg_replicas",
    "keep primary_conninfo in roles/postgresql_replica/templates/replica.conf.j2 — fix the template itself",
    "+primary_conninfo = 'host={{ postgresql_primary_host }} port={{ postgresql_port }}{% if postgresql_replication_ssl | bool %} sslmode=verify-full",
    'FATAL:  could not start WAL streaming: ERROR:  replication slot "pg-replica-1" does not exist',
    "primary_slot_name = '{{ inventory_hostname }}'`. It must use `{{ postgresql_replication_slot_name }}` instead.",
    "the replication roles must pass ansible-lint --profile production, not moderate",
    "roles/postgresql_replica/tasks/main.yml:41 Task/Handler: Check whether standby.signal exists",
    "var-naming[no-role-prefix]: Variables names from within roles should use postgresql_replica_ as a prefix. (vars: wal_receiver_timeout)",
]
WHY = [
    "Early constraint still in force after the late change (only role defaults may be renamed).",
    "User's decision after rejecting the postgresql.auto.conf/lineinfile approach: fix the Jinja2 template instead.",
    "The applied template fix for the whitespace-control bug; must be kept (not the stale '5432sslmode' error).",
    "The current replica failure after the conninfo fix (the remaining template bug).",
    "The exact line to change and the existing group_vars variable to use for the slot name.",
    "Late constraint replacing the earlier 'moderate profile' rule.",
    "Open production-profile lint finding with its location (seen inside a 260-item lint flood).",
    "Open lint finding that the rename permission exists for; the new name must carry the postgresql_replica_ prefix.",
]
if __name__ == '__main__':
    docs = [json.loads(l) for l in open(OUT)]
    for f, h1, h2 in check_facts(docs, FACTS):
        print(h1, h2, f[:70])
    ev = sum(1 for d in docs if d['type'] in ('response_item', 'event_msg') and d['payload']['type'] not in ('token_count', 'ghost_snapshot'))
    raw = open(OUT).read()
    print('events', ev, 'bytes', len(raw.encode()), 'tokens', len(raw) // 4)
    json.dump({"transcript": os.path.basename(OUT), "format": "codex", "ecosystem": "Ansible + PostgreSQL streaming replication (molecule, ansible-lint, Jinja2)",
               "description": "An Ansible repo's molecule replication scenario converges but the verify step finds the replicas not streaming. After clearing a stale container conflict, the agent reads the replica log and finds libpq rejecting 'port=5432sslmode=verify-full', caused by a '{%-' whitespace-control in replica.conf.j2. It first moves primary_conninfo into postgresql.auto.conf via lineinfile; the user rejects that and it is reverted, then the template line is fixed, revealing a second bug: primary_slot_name hardcodes inventory_hostname while the primary creates underscore slot names. Floods: a ~1,200-line verbose molecule test log, three identical molecule verify runs, 110-line repeated PostgreSQL logs, a 330-hit grep, a 260-line task file, a full ansible-galaxy collection list and a 260-violation ansible-lint run. Late, the user switches the lint rule from the moderate to the production profile and allows renames in role defaults only; the session ends with the slot-name fix and three lint findings still open.",
               "requiredFacts": FACTS, "why": WHY}, open(OUT.replace('.jsonl', '.facts.json'), 'w'), indent=2, ensure_ascii=False)
