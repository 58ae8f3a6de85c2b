import json, sys, uuid, datetime
sys.path.insert(0, '/work/tuneset-H/_generator')
from common import R, rhex
CWD = '/home/dev/confetti'
SID = 'b3e1f7a2-94c0-4d6e-8a15-6f2c0d9e7b41'
ev = []
def U(t): ev.append(('user', t))
def T(t): ev.append(('think', t))
def X(t): ev.append(('text', t))
def tool(name, inp, out, err=False, extra=None): ev.append(('tool', name, inp, out, err, extra))
def bash(cmd, out, err=False, desc='Run command'): tool('Bash', {'command': cmd, 'description': desc}, out, err)

LOADER_OLD = '''# frozen_string_literal: true

require "yaml"
require "date"
require_relative "errors"
require_relative "env_expander"

module Confetti
  # Loads layered YAML configuration files.
  class Loader
    DEFAULT_ENV = "development"

    def initialize(paths, env: DEFAULT_ENV, expand_env: true)
      @paths = Array(paths)
      @env = env.to_s
      @expand_env = expand_env
    end

    def load
      merged = @paths.each_with_object({}) do |path, acc|
        deep_merge!(acc, parse_document(File.read(path), path))
      end
      section = merged.fetch(@env) { raise MissingEnvironmentError, @env }
      @expand_env ? EnvExpander.new(ENV).expand(section) : section
    end

    private

    def parse_document(text, path)
      YAML.load(text) || {}
    rescue Psych::SyntaxError => e
      raise ParseError.new(path, e.line, e.problem)
    end

    def deep_merge!(left, right)
      right.each do |key, value|
        left[key] = if left[key].is_a?(Hash) && value.is_a?(Hash)
                      deep_merge!(left[key].dup, value)
                    else
                      value
                    end
      end
      left
    end
  end
end
'''
def numbered(s, start=1):
    return '\n'.join(f'{i+start:6}\u2192{l}' for i, l in enumerate(s.split('\n')))

def rspec_flood(n_ex, failures, seed):
    R.seed(seed)
    lines = [f'Randomized with seed {seed}', '']
    groups = ['Confetti::EnvExpander', 'Confetti::Loader', 'Confetti::Config', 'Confetti::Schema', 'Confetti::Coercion', 'Confetti::CLI', 'Confetti::Watcher']
    verbs = ['expands', 'returns', 'raises', 'coerces', 'merges', 'keeps', 'rejects', 'accepts', 'freezes', 'dumps']
    objs = ['nested hashes', 'an empty document', 'integer strings', 'a missing key', 'frozen strings', 'ERB tags', 'symbols as keys', 'array values', 'the default env', 'nil values', 'booleans', 'a duplicate key', 'unicode keys', 'timestamps', 'a relative path']
    for i in range(n_ex):
        g = R.choice(groups)
        lines.append(f'{g}')
        for _ in range(R.randint(2, 6)):
            lines.append(f'  #{R.choice(["call","load","fetch","to_h","validate!","[]"])}')
            lines.append(f'    {R.choice(verbs)} {R.choice(objs)}' + (' (FAILED - %d)' % (len(failures)) if False else ''))
    return lines

def rspec_out(fail_blocks, n_examples, n_fail, seed, extra_lines=400):
    body = rspec_flood(extra_lines // 9, [], seed)
    out = '\n'.join(body) + '\n\nFailures:\n\n' + '\n\n'.join(fail_blocks)
    out += f'\n\nFinished in {R.uniform(1.1,2.9):.2f} seconds (files took 0.4{R.randint(10,99)} seconds to load)\n{n_examples} examples, {n_fail} failures\n\nFailed examples:\n\n'
    return out

FAIL_ANCHOR = '''  1) Confetti::Loader#load with anchors merges the defaults block into each environment
     Failure/Error: YAML.load(text) || {}

     Psych::AliasesNotEnabled:
       Alias parsing was not enabled. To enable it, pass `aliases: true` to `Psych::load` or `Psych::safe_load`.
     # ./lib/confetti/loader.rb:30:in `parse_document'
     # ./lib/confetti/loader.rb:21:in `block in load'
     # ./lib/confetti/loader.rb:20:in `each'
     # ./lib/confetti/loader.rb:20:in `each_with_object'
     # ./lib/confetti/loader.rb:20:in `load'
     # ./spec/confetti/loader_spec.rb:88:in `block (4 levels) in <top (required)>'
     # ------------------
     # --- Caused by: ---
     # Psych::AliasesNotEnabled:
     #   Alias parsing was not enabled. To enable it, pass `aliases: true` to `Psych::load` or `Psych::safe_load`.
     #   /home/dev/.rbenv/versions/3.2.2/lib/ruby/gems/3.2.0/gems/psych-5.1.2/lib/psych/visitors/to_ruby.rb:432:in `visit_Psych_Nodes_Alias\''''
FAIL_DATE = '''  2) Confetti::Loader#load with dates keeps release_date as a Date
     Failure/Error: YAML.load(text) || {}

     Psych::DisallowedClass:
       Tried to load unspecified class: Date
     # ./lib/confetti/loader.rb:30:in `parse_document'
     # ./lib/confetti/loader.rb:21:in `block in load'
     # ./spec/confetti/loader_spec.rb:61:in `block (4 levels) in <top (required)>\''''
FAIL_SYM = '''  3) Confetti::Loader#load with symbols loads :log_level as a Symbol
     Failure/Error: YAML.load(text) || {}

     Psych::DisallowedClass:
       Tried to load unspecified class: Symbol
     # ./lib/confetti/loader.rb:30:in `parse_document'
     # ./spec/confetti/loader_spec.rb:74:in `block (4 levels) in <top (required)>\''''
FAIL_LIST_3 = '''rspec ./spec/confetti/loader_spec.rb:88 # Confetti::Loader#load with anchors merges the defaults block into each environment
rspec ./spec/confetti/loader_spec.rb:61 # Confetti::Loader#load with dates keeps release_date as a Date
rspec ./spec/confetti/loader_spec.rb:74 # Confetti::Loader#load with symbols loads :log_level as a Symbol'''

# ---------------- story -----------------
U("The loader specs in confetti broke when CI moved to Ruby 3.2 / psych 5. Please get `spec/confetti/loader_spec.rb` green again. Rules: don't change the public API (`Confetti.load(path, env:)` keeps its exact signature), and don't touch .rubocop.yml or add rubocop:disable comments — the gem has to stay RuboCop-clean as configured.")
T("Start by running the loader spec to see the failures. The Gemfile.lock may pin a bundler version.")
X("I'll run the loader spec first.")
bash('bundle exec rspec spec/confetti/loader_spec.rb', "Could not find 'bundler' (2.4.22) required by your /home/dev/confetti/Gemfile.lock. (Gem::GemNotFoundException)\nTo update to the latest version installed on your system, run `bundle update --bundler`.\nTo install the missing version, run `gem install bundler:2.4.22`", True, 'Run loader spec')
T("Lockfile was BUNDLED WITH 2.4.22. Check which bundlers are installed rather than updating the lockfile.")
bash('gem list bundler', "\n*** LOCAL GEMS ***\n\nbundler (2.5.3, 2.4.22 default: 2.4.10)", False, 'List bundler versions')
bash('tail -3 Gemfile.lock', "\nBUNDLED WITH\n   2.4.22", False, 'Lockfile footer')
X("2.4.22 is installed, it just isn't the default. I'll invoke it explicitly with `bundle _2.4.22_ exec rspec spec/confetti/loader_spec.rb` so the lockfile stays untouched.")
fb = [FAIL_ANCHOR, FAIL_DATE, FAIL_SYM]
bash('bundle _2.4.22_ exec rspec spec/confetti/loader_spec.rb', 'Error: Exit code 1\n' + rspec_out(fb, 31, 3, 11873, 600) + FAIL_LIST_3, True, 'Run loader spec with bundler 2.4.22')
for cmd, o, d in [
    ('ruby -v', 'ruby 3.2.2 (2023-03-30 revision e51014f9c0) [x86_64-linux]', 'Ruby version'),
    ('git status --short && git log --oneline -3', '8d2c1f0 ci: move matrix to ruby 3.2\n5a7e3b9 loader: support multiple paths\n2f0c4d1 bump version to 0.9.3', 'Repo state'),
    ('ls lib/confetti spec/confetti spec/fixtures', 'lib/confetti:\ncli.rb\ncoercion.rb\nenv_expander.rb\nerrors.rb\nloader.rb\nschema.rb\nversion.rb\nwatcher.rb\n\nspec/confetti:\ncli_spec.rb\nconfig_spec.rb\nloader_spec.rb\nschema_spec.rb\nwatcher_spec.rb\n\nspec/fixtures:\nanchors.local.yml\nanchors.yml\nbasic.yml\ndates.yml\nsymbols.yml', 'List files'),
    ('cat spec/fixtures/dates.yml spec/fixtures/symbols.yml', 'development:\n  release_date: 2026-01-15\n  built_at: 2026-01-15 10:22:00 Z\n---\ndevelopment:\n  log_level: :debug', 'Show date and symbol fixtures'),
    ('cat .github/workflows/ci.yml | head -30', 'name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        ruby: ["3.0", "3.1", "3.2"]\n    steps:\n      - uses: actions/checkout@v4\n      - uses: ruby/setup-ruby@v1\n        with:\n          ruby-version: ${{ matrix.ruby }}\n          bundler: 2.4.22\n          bundler-cache: true\n      - run: bundle exec rspec\n      - run: bundle exec rubocop', 'CI workflow'),
]:
    bash(cmd, o, False, d)
T("Three failures, all from YAML.load in parse_document: psych 4+ made YAML.load safe by default, so Date, Symbol and aliases are rejected.")
tool('Read', {'file_path': f'{CWD}/lib/confetti/loader.rb'}, numbered(LOADER_OLD.rstrip('\n')), False, {'file': {'filePath': f'{CWD}/lib/confetti/loader.rb', 'content': LOADER_OLD, 'numLines': LOADER_OLD.count('\n'), 'startLine': 1, 'totalLines': LOADER_OLD.count('\n')}})
SPEC = open('/dev/null').read()
spec_lines = ['# frozen_string_literal: true', '', 'require "spec_helper"', '', 'RSpec.describe Confetti::Loader do', '  let(:fixtures) { File.expand_path("../fixtures", __dir__) }', '']
for i in range(8, 130):
    if i == 55: spec_lines.append('  describe "#load" do')
    elif i == 58: spec_lines.append('    context "with dates" do')
    elif i == 60: spec_lines.append('      it "keeps release_date as a Date" do')
    elif i == 61: spec_lines.append('        cfg = described_class.new(File.join(fixtures, "dates.yml")).load')
    elif i == 72: spec_lines.append('      it "loads :log_level as a Symbol" do')
    elif i == 74: spec_lines.append('        expect(described_class.new(File.join(fixtures, "symbols.yml")).load["log_level"]).to eq(:debug)')
    elif i == 84: spec_lines.append('    context "with anchors" do')
    elif i == 86: spec_lines.append('      it "merges the defaults block into each environment" do')
    elif i == 88: spec_lines.append('        cfg = described_class.new(paths, env: "production").load')
    elif i == 89: spec_lines.append('        expect(cfg["pool"]).to eq(5)')
    elif i == 90: spec_lines.append('        expect(cfg["host"]).to eq("db.internal")')
    else: spec_lines.append(R.choice(['      end', '    end', '', '        expect(cfg).to be_frozen', '        expect { subject.load }.not_to raise_error', '    let(:env) { "test" }', '        expect(cfg.keys).to include("adapter")']))
spec_txt = '\n'.join(spec_lines)
tool('Read', {'file_path': f'{CWD}/spec/confetti/loader_spec.rb'}, numbered(spec_txt), False, {'file': {'filePath': f'{CWD}/spec/confetti/loader_spec.rb', 'content': spec_txt, 'numLines': len(spec_lines), 'startLine': 1, 'totalLines': len(spec_lines)}})
bash('cat spec/fixtures/anchors.yml', 'defaults: &defaults\n  adapter: postgresql\n  pool: 5\n  host: localhost\n\ndevelopment:\n  <<: *defaults\n  database: confetti_dev\n\nproduction:\n  <<: *defaults\n  host: db.internal\n  database: confetti_prod', False, 'Show anchors fixture')
# grep flood
hits = []
for i in range(340):
    f = R.choice(['lib/confetti/loader.rb', 'lib/confetti/cli.rb', 'vendor/bundle/ruby/3.2.0/gems/psych-5.1.2/lib/psych.rb', 'vendor/bundle/ruby/3.2.0/gems/rubocop-1.57.2/lib/rubocop/config_loader.rb', 'vendor/bundle/ruby/3.2.0/gems/i18n-1.14.1/lib/i18n/backend/base.rb', 'vendor/bundle/ruby/3.2.0/gems/rspec-core-3.12.2/lib/rspec/core/configuration.rb', 'vendor/bundle/ruby/3.2.0/gems/bundler-audit-0.9.1/lib/bundler/audit/database.rb', 'vendor/bundle/ruby/3.2.0/gems/rubocop-ast-1.30.0/lib/rubocop/ast/node.rb'])
    ln = R.randint(10, 900)
    hits.append(f'{f}:{ln}:      ' + R.choice(['YAML.load_file(path, permitted_classes: [Regexp, Symbol], aliases: true)', 'Psych.safe_load(yaml, permitted_classes: classes, aliases: aliases)', 'YAML.safe_load(File.read(file), permitted_classes: [Symbol])', 'data = YAML.load(content)', 'def self.load(yaml, permitted_classes: [Symbol], permitted_symbols: [], aliases: false, filename: nil)', 'YAML.unsafe_load(text)', 'raise DisallowedClass.new("load", klass_name)']))
bash('grep -rn "YAML\\.\\(load\\|safe_load\\|unsafe_load\\)\\|safe_load(" . --include=*.rb', '\n'.join(hits), False, 'Find YAML load calls')
T("The hits are mostly vendored gems. Only lib/confetti/loader.rb:30 matters. The quickest way back to the old behaviour would be to force psych 3 where YAML.load was unsafe.")
X("All three failures come from `YAML.load` becoming safe-by-default in psych 4+. The smallest change to restore the old behaviour is to pin psych below 4 in the Gemfile. Let me try that.")
gem_old = 'source "https://rubygems.org"\n\ngemspec\n\ngem "rake", "~> 13.0"\ngem "rspec", "~> 3.12"\ngem "rubocop", "~> 1.57"\ngem "rubocop-rspec", "~> 2.25"\ngem "rubocop-rake", "~> 0.6"\n'
tool('Edit', {'file_path': f'{CWD}/Gemfile', 'old_string': 'gem "rake", "~> 13.0"', 'new_string': 'gem "rake", "~> 13.0"\ngem "psych", "< 4"'}, f'The file {CWD}/Gemfile has been updated.', False, {'filePath': f'{CWD}/Gemfile', 'oldString': 'gem "rake", "~> 13.0"', 'newString': 'gem "rake", "~> 13.0"\ngem "psych", "< 4"', 'originalFile': gem_old, 'structuredPatch': [{'oldStart': 5, 'oldLines': 1, 'newStart': 5, 'newLines': 2, 'lines': [' gem "rake", "~> 13.0"', '+gem "psych", "< 4"']}], 'userModified': False, 'replaceAll': False})
conflict = '''Fetching gem metadata from https://rubygems.org/.........
Resolving dependencies...
Could not find compatible versions

Because every version of confetti depends on psych >= 4.0
  and Gemfile depends on psych < 4,
  every version of confetti is incompatible with Gemfile.
So, because Gemfile depends on confetti >= 0,
  version solving has failed.'''
bash('bundle _2.4.22_ install', conflict, True, 'Install with psych pin')
T("The gemspec itself requires psych >= 4.0. Pinning below 4 conflicts with the gemspec; I'd have to relax the gemspec too.")
X("Bundler refuses: the gemspec declares `spec.add_dependency \"psych\", \">= 4.0\"`, so the pin conflicts. I could relax the gemspec dependency to `>= 3.3` as well to make this resolve — should I?")
U("No. Undo the Gemfile pin. We ship against psych 4+ on purpose (that's why the gemspec says >= 4.0), don't downgrade anything. Fix the loader code instead.")
tool('Edit', {'file_path': f'{CWD}/Gemfile', 'old_string': 'gem "rake", "~> 13.0"\ngem "psych", "< 4"', 'new_string': 'gem "rake", "~> 13.0"'}, f'The file {CWD}/Gemfile has been updated.', False, {'filePath': f'{CWD}/Gemfile', 'oldString': 'gem "rake", "~> 13.0"\ngem "psych", "< 4"', 'newString': 'gem "rake", "~> 13.0"', 'originalFile': gem_old.replace('13.0"\n', '13.0"\ngem "psych", "< 4"\n', 1), 'structuredPatch': [{'oldStart': 5, 'oldLines': 2, 'newStart': 5, 'newLines': 1, 'lines': [' gem "rake", "~> 13.0"', '-gem "psych", "< 4"']}], 'userModified': False, 'replaceAll': False})
bash('git diff --stat && git status --short', '', False, 'Confirm Gemfile revert')
X("Reverted the psych pin; the Gemfile is back to its committed state. Decision: we stay on psych >= 4 and make parse_document call `YAML.safe_load` with explicit permitted_classes and `aliases: true`.")
# dependency tree flood
dep = []
gems = ['ast 2.4.2','base64 0.2.0','diff-lcs 1.5.0','json 2.7.1','language_server-protocol 3.17.0.3','parallel 1.24.0','parser 3.2.2.4','racc 1.7.3','rainbow 3.1.1','rake 13.1.0','regexp_parser 2.8.3','rexml 3.2.6','rspec 3.12.0','rspec-core 3.12.2','rspec-expectations 3.12.3','rspec-mocks 3.12.6','rspec-support 3.12.1','rubocop 1.57.2','rubocop-ast 1.30.0','rubocop-capybara 2.19.0','rubocop-factory_bot 2.24.0','rubocop-rake 0.6.0','rubocop-rspec 2.25.0','ruby-progressbar 1.13.0','unicode-display_width 2.5.0','psych 5.1.2','stringio 3.1.0','date 3.3.4','zeitwerk 2.6.12']
for round_ in range(4):
    for g in gems:
        n, v = g.split()
        dep.append(f'  * {n} ({v})')
        for _ in range(R.randint(0, 4)):
            dep.append(f'      depends on {R.choice(gems).split()[0]} ({R.choice([">= 0", "~> 1.0", ">= 2.4", "< 3.0, >= 1.3", "~> 3.12.0"])})')
bash('bundle _2.4.22_ list --verbose 2>&1; for i in $(seq 1 14); do bundle _2.4.22_ info --path psych >/dev/null; done; bundle _2.4.22_ exec gem dependency -r', 'Gems included by the bundle:\n' + '\n'.join(dep), False, 'Dump dependency tree')
bash('bundle _2.4.22_ exec ruby -e \'require "psych"; puts Psych::VERSION\'', '5.1.2', False, 'psych version')
LOADER_V1 = LOADER_OLD.replace('      YAML.load(text) || {}', '      YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path) || {}')
tool('Edit', {'file_path': f'{CWD}/lib/confetti/loader.rb', 'old_string': '      YAML.load(text) || {}', 'new_string': '      YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path) || {}'}, f"The file {CWD}/lib/confetti/loader.rb has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n    29\u2192    def parse_document(text, path)\n    30\u2192      YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path) || {{}}\n    31\u2192    rescue Psych::SyntaxError => e", False, {'filePath': f'{CWD}/lib/confetti/loader.rb', 'oldString': '      YAML.load(text) || {}', 'newString': '      YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path) || {}', 'originalFile': LOADER_OLD, 'structuredPatch': [{'oldStart': 29, 'oldLines': 3, 'newStart': 29, 'newLines': 3, 'lines': ['     def parse_document(text, path)', '-      YAML.load(text) || {}', '+      YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path) || {}', '     rescue Psych::SyntaxError => e']}], 'userModified': False, 'replaceAll': False})
FAIL_MERGE = '''  1) Confetti::Loader#load with anchors merges the defaults block into each environment
     Failure/Error: expect(cfg["host"]).to eq("db.internal")

       expected: "db.internal"
            got: "localhost"

       (compared using ==)
     # ./spec/confetti/loader_spec.rb:90:in `block (4 levels) in <top (required)>\''''
for k in range(3):
    bash('bundle _2.4.22_ exec rspec spec/confetti/loader_spec.rb', 'Error: Exit code 1\n' + rspec_out([FAIL_MERGE], 31, 1, 30211 + k, 500) + 'rspec ./spec/confetti/loader_spec.rb:86 # Confetti::Loader#load with anchors merges the defaults block into each environment', True, 'Re-run loader spec')
    if k == 0:
        T("Date and Symbol pass now. The anchors case still fails, but with a different error: host is localhost, so the later key lost to the merge key. Re-run to make sure it isn't order dependent.")
    elif k == 1:
        T("Same failure with a different seed. Deterministic.")
T("With psych 5 the `<<` merge happens and then `host: db.internal` should override. Got localhost means deep_merge! dups left[key] and assigns — no. Actually the problem: the merge key is resolved per document, fine. Let me inspect what safe_load returns for the fixture.")
bash('bundle _2.4.22_ exec ruby -Ilib -e \'require "confetti"; pp YAML.safe_load(File.read("spec/fixtures/anchors.yml"), aliases: true)["production"]\'', '{"adapter"=>"postgresql", "pool"=>5, "host"=>"db.internal", "database"=>"confetti_prod"}', False, 'Inspect parsed anchors')
T("Raw parse is right. So deep_merge! is wrong: spec passes two paths? Check the spec around line 86-90 and the EnvExpander.")
bash('sed -n 80,95p spec/confetti/loader_spec.rb; cat spec/fixtures/anchors.local.yml', '    end\n\n    context "with anchors" do\n      let(:paths) { [File.join(fixtures, "anchors.yml"), File.join(fixtures, "anchors.local.yml")] }\n\n      it "merges the defaults block into each environment" do\n        cfg = described_class.new(paths, env: "production").load\n        expect(cfg["pool"]).to eq(5)\n        expect(cfg["host"]).to eq("db.internal")\n      end\n    end\n---\ndefaults: &defaults\n  host: localhost\n  pool: 5', False, 'Look at spec context and second fixture')
T("The second file redefines `defaults` only; deep_merge! merges 'defaults' key but production was already resolved in file one, so production.host should remain db.internal... unless deep_merge! mutates a shared hash: `<<: *defaults` in psych returns the SAME Hash object for the alias? No, merge key copies. But deep_merge!(left[key].dup, value) — when the first file is merged into {} the value hashes are shared... left['defaults'] and left['production'] — production built from defaults copy. Hmm, got localhost. EnvExpander? ENV has HOST? No — ENV expansion: expand_env true and the section values like 'db.internal' no. Let me check env_expander.")
ENVX = '''# frozen_string_literal: true

module Confetti
  # Replaces ${VAR} and bare keys found in ENV.
  class EnvExpander
    def initialize(env)
      @env = env
    end

    def expand(value)
      case value
      when Hash then value.to_h { |k, v| [k, @env.fetch("CONFETTI_#{k.upcase}", expand(v))] }
      when Array then value.map { |v| expand(v) }
      when String then value.gsub(/\\$\\{(\\w+)\\}/) { @env.fetch(Regexp.last_match(1), "") }
      else value
      end
    end
  end
end
'''
tool('Read', {'file_path': f'{CWD}/lib/confetti/env_expander.rb'}, numbered(ENVX.rstrip('\n')), False, {'file': {'filePath': f'{CWD}/lib/confetti/env_expander.rb', 'content': ENVX, 'numLines': ENVX.count('\n'), 'startLine': 1, 'totalLines': ENVX.count('\n')}})
bash('env | grep CONFETTI_', 'CONFETTI_HOST=localhost\nCONFETTI_LOG=debug', False, 'Check CONFETTI_ env vars')
X("Found it: my shell exports `CONFETTI_HOST=localhost` (from `.envrc`), and `EnvExpander#expand` lets `CONFETTI_<KEY>` override any key. The spec isn't isolated from the environment. CI doesn't set it, so this failure is local-only noise.")
bash('env -u CONFETTI_HOST -u CONFETTI_LOG bundle _2.4.22_ exec rspec spec/confetti/loader_spec.rb', '\n'.join(rspec_flood(90, [], 4410)) + '\n\nFinished in 0.71 seconds (files took 0.402 seconds to load)\n31 examples, 0 failures\n', False, 'Run loader spec without CONFETTI_ vars')
for cmd, o, d in [
    ('bundle _2.4.22_ exec ruby -Ilib -e \'require "confetti"; p Confetti.load("spec/fixtures/dates.yml")["release_date"].class\'', 'Date', 'Check Date loads'),
    ('bundle _2.4.22_ exec ruby -Ilib -e \'require "confetti"; p Confetti.load("spec/fixtures/symbols.yml")["log_level"]\'', ':debug', 'Check Symbol loads'),
    ('git diff', 'diff --git a/lib/confetti/loader.rb b/lib/confetti/loader.rb\nindex 3c1a9e2..b71f0d4 100644\n--- a/lib/confetti/loader.rb\n+++ b/lib/confetti/loader.rb\n@@ -27,7 +27,7 @@ module Confetti\n     private\n \n     def parse_document(text, path)\n-      YAML.load(text) || {}\n+      YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path) || {}\n     rescue Psych::SyntaxError => e\n       raise ParseError.new(path, e.line, e.problem)\n     end', 'Current diff'),
    ('cat .envrc', 'export CONFETTI_HOST=localhost\nexport CONFETTI_LOG=debug\nlayout ruby', 'Show .envrc'),
]:
    bash(cmd, o, False, d)
X("With the env vars unset, all 31 loader examples pass. Now RuboCop.")
# rubocop flood
rc = ['Inspecting 58 files', '.' * 40 + 'C' + '.' * 17, '', 'Offenses:', '']
files = ['lib/confetti/cli.rb', 'lib/confetti/schema.rb', 'lib/confetti/coercion.rb', 'spec/confetti/cli_spec.rb', 'spec/confetti/schema_spec.rb', 'lib/confetti/watcher.rb']
for i in range(0):
    pass
rc.append('lib/confetti/loader.rb:30:101: C: Layout/LineLength: Line is too long. [104/100]')
rc.append('      YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path) || {}')
rc.append('                                                                                                    ^^^^')
rc.append('')
rc.append('58 files inspected, 1 offense detected, 1 offense autocorrectable')
bash('bundle _2.4.22_ exec rubocop', 'Error: Exit code 1\n' + '\n'.join(rc), True, 'Run RuboCop')
T("Line too long. Extract the permitted classes into a constant PERMITTED_CLASSES = [Date, Time, Symbol].freeze.")
# filler: look around other files, run full suite flood
for f in ['lib/confetti.rb', 'lib/confetti/errors.rb', 'lib/confetti/cli.rb', 'confetti.gemspec', '.rubocop.yml']:
    body = []
    if f == 'lib/confetti.rb':
        body = ['# frozen_string_literal: true', '', 'require_relative "confetti/version"', 'require_relative "confetti/loader"', '', '# Layered YAML configuration.', 'module Confetti', '  def self.load(path, env: Loader::DEFAULT_ENV)', '    Loader.new(path, env: env).load', '  end', 'end']
    elif f == 'confetti.gemspec':
        body = ['# frozen_string_literal: true', '', 'require_relative "lib/confetti/version"', '', 'Gem::Specification.new do |spec|', '  spec.name = "confetti"', '  spec.version = Confetti::VERSION', '  spec.summary = "Layered YAML configuration loader"', '  spec.required_ruby_version = ">= 3.0"', '  spec.files = Dir["lib/**/*.rb"]', '  spec.add_dependency "psych", ">= 4.0"', '  spec.metadata["rubygems_mfa_required"] = "true"', 'end']
    elif f == '.rubocop.yml':
        body = ['require:', '  - rubocop-rspec', '  - rubocop-rake', '', 'AllCops:', '  TargetRubyVersion: 3.0', '  NewCops: enable', '', 'Layout/LineLength:', '  Max: 100', '', 'RSpec/ExampleLength:', '  Max: 8', '', 'Style/Documentation:', '  Exclude:', '    - "spec/**/*"']
    else:
        body = ['# frozen_string_literal: true', '', 'module Confetti'] + [R.choice(['  # helper', '  def self.x; end', '    option :env, default: "development"', '    desc "dump", "print the merged config"', '  class ParseError < Error', '    def initialize(path, line, problem)', '      super("#{path}:#{line}: #{problem}")', '  end', '']) for _ in range(R.randint(40, 160))] + ['end']
    txt = '\n'.join(body) + '\n'
    tool('Read', {'file_path': f'{CWD}/{f}'}, numbered(txt.rstrip('\n')), False, {'file': {'filePath': f'{CWD}/{f}', 'content': txt, 'numLines': len(body), 'startLine': 1, 'totalLines': len(body)}})
X("`Confetti.load(path, env:)` in lib/confetti.rb just forwards to Loader. I'll keep that signature as you asked and only touch the loader.")
LOADER_V2 = LOADER_V1.replace('    DEFAULT_ENV = "development"\n', '    DEFAULT_ENV = "development"\n    PERMITTED_CLASSES = [Date, Time, Symbol].freeze\n').replace('YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path)', 'YAML.safe_load(text, permitted_classes: PERMITTED_CLASSES, aliases: true, filename: path)')
tool('Edit', {'file_path': f'{CWD}/lib/confetti/loader.rb', 'old_string': '    DEFAULT_ENV = "development"\n', 'new_string': '    DEFAULT_ENV = "development"\n    PERMITTED_CLASSES = [Date, Time, Symbol].freeze\n'}, f'The file {CWD}/lib/confetti/loader.rb has been updated.', False, {'filePath': f'{CWD}/lib/confetti/loader.rb', 'oldString': '    DEFAULT_ENV = "development"\n', 'newString': '    DEFAULT_ENV = "development"\n    PERMITTED_CLASSES = [Date, Time, Symbol].freeze\n', 'originalFile': LOADER_V1, 'structuredPatch': [{'oldStart': 11, 'oldLines': 1, 'newStart': 11, 'newLines': 2, 'lines': ['     DEFAULT_ENV = "development"', '+    PERMITTED_CLASSES = [Date, Time, Symbol].freeze']}], 'userModified': False, 'replaceAll': False})
tool('Edit', {'file_path': f'{CWD}/lib/confetti/loader.rb', 'old_string': 'permitted_classes: [Date, Time, Symbol], aliases: true', 'new_string': 'permitted_classes: PERMITTED_CLASSES, aliases: true'}, f'The file {CWD}/lib/confetti/loader.rb has been updated.', False, {'filePath': f'{CWD}/lib/confetti/loader.rb', 'oldString': 'permitted_classes: [Date, Time, Symbol], aliases: true', 'newString': 'permitted_classes: PERMITTED_CLASSES, aliases: true', 'originalFile': LOADER_V1, 'structuredPatch': [{'oldStart': 31, 'oldLines': 1, 'newStart': 31, 'newLines': 1, 'lines': ['-      YAML.safe_load(text, permitted_classes: [Date, Time, Symbol], aliases: true, filename: path) || {}', '+      YAML.safe_load(text, permitted_classes: PERMITTED_CLASSES, aliases: true, filename: path) || {}']}], 'userModified': False, 'replaceAll': False})
bash('bundle _2.4.22_ exec rubocop lib/confetti/loader.rb', 'Inspecting 1 file\n.\n\n1 file inspected, no offenses detected', False, 'RuboCop on loader')
# full suite flood (1500 lines)
FAIL_CLI = '''  1) Confetti::CLI dump prints symbols with a leading colon
     Failure/Error: expect(output).to include("log_level: :debug")

       expected "---\\nadapter: postgresql\\nlog_level: debug\\n" to include "log_level: :debug"
     # ./spec/confetti/cli_spec.rb:47:in `block (3 levels) in <top (required)>\''''
FAIL_WATCH = '''  2) Confetti::Watcher reloads with custom permitted classes
     Failure/Error: Confetti.load(path, env: "test", permitted_classes: [Date, Set])

     ArgumentError:
       unknown keyword: :permitted_classes
     # ./lib/confetti.rb:8:in `load'
     # ./spec/confetti/watcher_spec.rb:33:in `block (2 levels) in <top (required)>\''''
full = rspec_out([FAIL_CLI, FAIL_WATCH], 412, 2, 55120, 1300) + 'rspec ./spec/confetti/cli_spec.rb:45 # Confetti::CLI dump prints symbols with a leading colon\nrspec ./spec/confetti/watcher_spec.rb:31 # Confetti::Watcher reloads with custom permitted classes'
bash('env -u CONFETTI_HOST -u CONFETTI_LOG bundle _2.4.22_ exec rspec', 'Error: Exit code 1\n' + full, True, 'Run full suite')
T("Two failures outside loader_spec. watcher_spec:31 calls Confetti.load with a permitted_classes: keyword, which the public API doesn't accept. That's a pending spec added upstream? Check git log.")
bash('git log --oneline -5 -- spec/confetti/watcher_spec.rb spec/confetti/cli_spec.rb', '9c41e2d spec: watcher reload accepts permitted_classes (pending API)\n71a0b3f cli: dump keeps symbols\ne02d8aa spec: initial watcher specs\n3b9f6c1 cli: add dump command\n0a1d2e3 initial import', False, 'History of failing specs')
X("Loader spec is green and RuboCop is clean. The full suite shows two other failures:\n- `spec/confetti/watcher_spec.rb:31` calls `Confetti.load(path, env: \"test\", permitted_classes: [Date, Set])` → `ArgumentError: unknown keyword: :permitted_classes` at `./lib/confetti.rb:8`. Making it pass needs a public API change, which you ruled out.\n- `spec/confetti/cli_spec.rb:45` expects `log_level: :debug` in the dump output.\nShould I leave these alone?")
U("Hm, ok. Change of plan on the API: you may add a `permitted_classes:` keyword to `Confetti.load` (default `Loader::PERMITTED_CLASSES`), as long as existing `Confetti.load(path, env:)` calls behave exactly as before. That's the only API change allowed. The .rubocop.yml rule still stands. Leave the cli dump spec for now, that's a separate ticket.")
T("New rule: may add permitted_classes: keyword to Confetti.load with default Loader::PERMITTED_CLASSES. Need Loader#initialize to accept permitted_classes too and pass it to parse_document.")
tool('Grep', {'pattern': 'Confetti\\.load\\(|Loader\\.new\\(', 'path': CWD, 'output_mode': 'content', '-n': True}, '\n'.join([f'{R.choice(["spec/confetti/loader_spec.rb","spec/confetti/watcher_spec.rb","lib/confetti/cli.rb","lib/confetti/watcher.rb","README.md","spec/confetti/config_spec.rb"])}:{R.randint(5,200)}:    ' + R.choice(['Confetti.load(path, env: env)', 'Loader.new(paths, env: options[:env]).load', 'described_class.new(File.join(fixtures, "x.yml")).load', 'cfg = Confetti.load("config/app.yml", env: "production")']) for _ in range(120)]), False, {'mode': 'content', 'numFiles': 6})
LOADER_V3_INIT_OLD = '    def initialize(paths, env: DEFAULT_ENV, expand_env: true)\n      @paths = Array(paths)\n      @env = env.to_s\n      @expand_env = expand_env\n    end'
LOADER_V3_INIT_NEW = '    def initialize(paths, env: DEFAULT_ENV, expand_env: true, permitted_classes: PERMITTED_CLASSES)\n      @paths = Array(paths)\n      @env = env.to_s\n      @expand_env = expand_env\n      @permitted_classes = permitted_classes\n    end'
tool('Edit', {'file_path': f'{CWD}/lib/confetti/loader.rb', 'old_string': LOADER_V3_INIT_OLD, 'new_string': LOADER_V3_INIT_NEW}, f'The file {CWD}/lib/confetti/loader.rb has been updated.', False, {'filePath': f'{CWD}/lib/confetti/loader.rb', 'oldString': LOADER_V3_INIT_OLD, 'newString': LOADER_V3_INIT_NEW, 'originalFile': LOADER_V2, 'structuredPatch': [{'oldStart': 14, 'oldLines': 5, 'newStart': 14, 'newLines': 6, 'lines': ['-    def initialize(paths, env: DEFAULT_ENV, expand_env: true)', '+    def initialize(paths, env: DEFAULT_ENV, expand_env: true, permitted_classes: PERMITTED_CLASSES)', '       @paths = Array(paths)', '       @env = env.to_s', '       @expand_env = expand_env', '+      @permitted_classes = permitted_classes', '     end']}], 'userModified': False, 'replaceAll': False})
tool('Edit', {'file_path': f'{CWD}/lib/confetti/loader.rb', 'old_string': 'permitted_classes: PERMITTED_CLASSES, aliases: true', 'new_string': 'permitted_classes: @permitted_classes, aliases: true'}, f'The file {CWD}/lib/confetti/loader.rb has been updated.', False, None)
bash('env -u CONFETTI_HOST -u CONFETTI_LOG bundle _2.4.22_ exec rspec spec/confetti/watcher_spec.rb', 'Error: Exit code 1\n' + rspec_out([FAIL_WATCH.replace('  2)', '  1)')], 9, 1, 7781, 80) + 'rspec ./spec/confetti/watcher_spec.rb:31 # Confetti::Watcher reloads with custom permitted classes', True, 'Run watcher spec')
X("Loader now takes `permitted_classes:`; the watcher spec still fails because `Confetti.load` in lib/confetti.rb:8 doesn't forward the keyword yet. That's the next edit: `def self.load(path, env: Loader::DEFAULT_ENV, permitted_classes: Loader::PERMITTED_CLASSES)` passing it through to `Loader.new`.")
bash('git diff --stat', ' lib/confetti/loader.rb | 9 ++++++---\n 1 file changed, 6 insertions(+), 3 deletions(-)', False, 'Diff stat')
bash('bundle _2.4.22_ exec rubocop lib/confetti/loader.rb', 'Inspecting 1 file\n.\n\n1 file inspected, no offenses detected', False, 'RuboCop on loader')
ev.append(('system', 'Auto-compact is close: 11% context remaining'))
U("I have to step away. Please finish it within the limits I gave you: get the loader and watcher specs green with the full suite otherwise unchanged (cli dump spec can stay red), keep RuboCop clean, then give me a short summary of the diff.")

# ---------------- emit -----------------
out = []
t0 = datetime.datetime(2026, 12, 3, 14, 2, 0)
n = [0]
def ts():
    n[0] += 1
    return (t0 + datetime.timedelta(seconds=n[0] * 9.3)).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3] + 'Z'
def uid():
    return str(uuid.UUID(int=R.getrandbits(128), version=4))
out.append({'type': 'summary', 'summary': 'Fix confetti loader specs on psych 5', 'leafUuid': uid()})
out.append({'type': 'file-history-snapshot', 'messageId': 'snap0001', 'snapshot': {'messageId': 'snap0001', 'trackedFileBackups': {}, 'timestamp': '2026-12-03T14:02:00.000Z'}, 'isSnapshotUpdate': False})
parent = [None]
base = lambda: {'parentUuid': parent[0], 'isSidechain': False, 'userType': 'external', 'cwd': CWD, 'sessionId': SID, 'version': '1.0.112', 'gitBranch': 'fix/psych5-loader'}
k = [0]
def amsg(content):
    d = base(); u = uid(); k[0] += 1
    d.update({'type': 'assistant', 'uuid': u, 'timestamp': ts(), 'message': {'id': f'msg_01{k[0]:08d}', 'type': 'message', 'role': 'assistant', 'model': 'claude-sonnet-4-20250514', 'content': content, 'stop_reason': None, 'stop_sequence': None, 'usage': {'input_tokens': 4, 'cache_creation_input_tokens': R.randint(200, 3000), 'cache_read_input_tokens': 14000 + 900 * k[0], 'output_tokens': R.randint(40, 400), 'service_tier': 'standard'}}, 'requestId': f'req_011C{k[0]:06d}'})
    out.append(d); parent[0] = u
def umsg(content, tur=None, meta=False):
    d = base(); u = uid()
    d.update({'type': 'user', 'uuid': u, 'timestamp': ts(), 'message': {'role': 'user', 'content': content}})
    if tur is not None: d['toolUseResult'] = tur
    if meta: d['isMeta'] = True
    out.append(d); parent[0] = u
first = True
for e in ev:
    if e[0] == 'user':
        umsg(e[1])
        if first:
            out.append({'type': 'file-history-snapshot', 'messageId': parent[0], 'snapshot': {'messageId': parent[0], 'trackedFileBackups': {}, 'timestamp': ts()}, 'isSnapshotUpdate': False}); first = False
    elif e[0] == 'think':
        amsg([{'type': 'thinking', 'thinking': e[1], 'signature': 'Eq' + rhex(30)}])
    elif e[0] == 'text':
        amsg([{'type': 'text', 'text': e[1]}])
    elif e[0] == 'system':
        u = uid(); out.append({'type': 'system', 'subtype': 'informational', 'content': e[1], 'isMeta': False, 'level': 'warning', 'uuid': u, 'timestamp': ts(), 'sessionId': SID, 'parentUuid': parent[0]}); parent[0] = u
    else:
        _, name, inp, outp, err, extra = e
        tid = 'toolu_01' + rhex(22)
        amsg([{'type': 'tool_use', 'id': tid, 'name': name, 'input': inp}])
        content = outp
        if name == 'Bash':
            if err:
                tur = 'Error: ' + outp if not outp.startswith('Error') else outp
                content = tur
            else:
                tur = {'stdout': outp, 'stderr': '', 'interrupted': False, 'isImage': False}
        elif extra is not None:
            tur = dict(extra); 
            if name == 'Read': tur = {'type': 'text', **extra}
        else:
            tur = {'filePath': inp.get('file_path'), 'oldString': inp.get('old_string'), 'newString': inp.get('new_string'), 'userModified': False, 'replaceAll': False} if name == 'Edit' else outp
        if name == 'Grep': tur = {'mode': 'content', 'numFiles': 6, 'content': outp, 'numLines': outp.count('\n') + 1}
        block = {'tool_use_id': tid, 'type': 'tool_result', 'content': content}
        if err: block['is_error'] = True
        umsg([block], tur)
path = '/work/tuneset-H/claude-code-ruby-gem-psych-safe-load.jsonl'
with open(path, 'w') as f:
    for d in out: f.write(json.dumps(d, ensure_ascii=False) + '\n')
from common import count_content
s = open(path).read()
print('events', count_content(ev), 'lines', len(out), 'bytes', len(s.encode()), 'tok', len(s) // 4)
