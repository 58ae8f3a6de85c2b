import json, hashlib, os
D = '/work/tuneset-H'
F = {
 'claude-code-ruby-gem-psych-safe-load.jsonl': dict(format='claude-code', ecosystem='ruby-gem (RSpec, RuboCop, Bundler, Psych/YAML)',
  description="Claude Code session in a Ruby gem 'confetti' (layered YAML config loader) whose loader specs broke on Ruby 3.2 / psych 5. The agent first works around a Bundler version mismatch (bundle _2.4.22_), then tries pinning psych < 4 in the Gemfile, which hits a Bundler resolution conflict with the gemspec; the user rejects it and the pin is reverted in favour of YAML.safe_load with permitted classes. A local CONFETTI_HOST env var causes a misleading anchors failure (stale), RuboCop flags a long line, and a full-suite run exposes a watcher spec needing a new keyword. Late, the user relaxes the 'no public API change' rule to allow a permitted_classes: keyword on Confetti.load while keeping the .rubocop.yml rule; the session ends before lib/confetti.rb forwards the keyword. Floods: 1,000+ line RSpec runs (repeated), a dependency dump, a 340-hit grep, file reads.",
  facts=[
   ("don't touch .rubocop.yml or add rubocop:disable comments", "Early constraint still in force (reaffirmed late: 'The .rubocop.yml rule still stands')."),
   ("you may add a `permitted_classes:` keyword to `Confetti.load` (default `Loader::PERMITTED_CLASSES`)", "The late constraint change: the only allowed public API change, and its required default."),
   ("Leave the cli dump spec for now, that's a separate ticket.", "Scope limit: the cli_spec failure must not be worked on."),
   ("we stay on psych >= 4 and make parse_document call `YAML.safe_load` with explicit permitted_classes and `aliases: true`", "Decision taken after the reverted psych pin; no dependency downgrades."),
   ("bundle _2.4.22_ exec rspec spec/confetti/loader_spec.rb", "How to run specs: the lockfile needs bundler 2.4.22, which is not the default."),
   ("env -u CONFETTI_HOST -u CONFETTI_LOG bundle _2.4.22_ exec rspec", "Specs must run without the .envrc CONFETTI_ vars, or the anchors spec fails spuriously."),
   ("Confetti::Watcher reloads with custom permitted classes", "The remaining failing example that the work must turn green."),
   ("# ./lib/confetti.rb:8:in `load'", "Where the ArgumentError (unknown keyword: :permitted_classes) is raised: the line to change next."),
  ]),
 'codex-rust-embedded-bme280-i2c-address.jsonl': dict(format='codex', ecosystem='rust-embedded no_std (cargo, probe-rs, defmt, clippy, stm32f4xx-hal)',
  description="Codex CLI rollout on tidepool-fw, STM32F411 no_std firmware whose BME280 fails to initialise on rev B boards (defmt chip id error). The agent makes the driver generic over embedded-hal 1.0, hits an E0277 HAL trait bound error, tries bumping stm32f4xx-hal to 0.20 (46 compile errors, Cargo.toml touched); the user rejects it and Cargo.toml/Cargo.lock are reverted in favour of embedded-hal 0.2 blocking traits. Clippy -D warnings floods with stale diagnostics until cargo clean; the chip id error changes from 0xff (stale) to 0x00, and an I2C scan shows the sensor at 0x77. Late, the user lifts the 'only edit bme280.rs' rule to allow src/board.rs, with a BME280_ADDR const under the existing rev-b feature, Cargo.toml still off limits; the session ends before main.rs is wired and hardware confirmed. Floods: cargo build logs, cargo tree, repeated probe-rs/defmt runs of 300-400 lines, 61-diagnostic clippy output.",
  facts=[
   ("Change of rules: you may edit src/board.rs now", "The late constraint change superseding 'only edit src/sensors/bme280.rs'."),
   ("pub const BME280_ADDR: u8 = 0x77;", "The exact constant (rev-b value) the user asked for."),
   ("Cargo.toml is still off limits, so no new features there: use the existing `rev-b` feature that's already declared.", "Constraint still in force after the change: no Cargo.toml edits, use the rev-b feature."),
   ("keep stm32f4xx-hal 0.14 and bound the driver on `embedded_hal::blocking::i2c::{Write, WriteRead}` (eh 0.2)", "Decision after the reverted HAL upgrade."),
   ("cargo clippy --target thumbv7em-none-eabihf -- -D warnings", "The lint gate that must stay clean (early constraint, reaffirmed at the end)."),
   ("Don't do the probing, that hides wiring faults.", "Rejected alternative: no auto-probing of 0x76/0x77 in init."),
   ("Bme280::with_address(board.i2c1, board::BME280_ADDR)", "The remaining code change in src/main.rs:74."),
  ]),
 'swe-agent-java-maven-jackson-money-scale.traj': dict(format='swe-agent', ecosystem='java-maven (JUnit 5, surefire, Jackson)',
  description="SWE-agent trajectory on a Maven multi-module money library: MoneyDeserializer loses the scale and precision of numeric JSON amounts. The agent adds JUnit 5 tests, then enables USE_BIG_DECIMAL_FOR_FLOATS in MoneyModule.setupModule; MoneyModuleTest.doesNotChangeMapperFeatures fails and the change is reverted, as the maintainer comment quoted in the issue warned. Switching MoneyDeserializer to getDecimalValue() does not fix the scale test; a surefire report, a repro program and a stale generated file in target/ lead to LegacyMoneyModule, pulled in by MoneyModule.getDependencies(), whose SingleMoneyDeserializer at MoneyArrayReader.java:94 still uses getDoubleValue. The run ends (cost limit) before that line is changed. Floods: a 520-line Maven download/test log, a dependency tree, repeated identical test runs, a 120-hit search_file, a surefire XML with long classpath properties.",
  facts=[
   ("don't change the public `Money` constructor or any public signature in `money-core`, and don't add new dependencies", "Constraint stated in the issue."),
   ("don't enable `DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS` globally", "Maintainer hint quoted in the issue; it is why the first approach was reverted."),
   ("for `VALUE_NUMBER_INT` keep scale 0", "Second half of the hint: integer amounts must keep scale 0."),
   ("MoneyModuleTest.doesNotChangeMapperFeatures:41 registering MoneyModule must not change mapper features", "The guard test that must keep passing (reason for the revert)."),
   ("MoneyDeserializerTest.keepsScaleOfNumericAmount:30 expected: <10.50> but was: <10.5>", "The still-failing test and its current failure."),
   ("com.fastmoney.jackson.MoneyArrayReader$SingleMoneyDeserializer.deserialize(MoneyArrayReader.java:94)", "Where the real lossy path is: the deserializer actually used for Money."),
   ("I need to change line 94 to use `AmountReader.read(p)`", "The next edit the agent had decided on."),
   ("any accessor call before `getDecimalValue()` loses the scale", "Root-cause insight: getNumberType() caches a double, so read the decimal first."),
  ]),
}
def decoded_strings(path):
    vals = []
    def walk(o):
        if isinstance(o, str):
            vals.append(o)
            # nested JSON strings (codex arguments/outputs)
            if o[:1] in '{[':
                try: walk(json.loads(o))
                except Exception: pass
        elif isinstance(o, dict):
            for v in o.values(): walk(v)
        elif isinstance(o, list):
            for v in o: walk(v)
    if path.endswith('.traj'):
        walk(json.load(open(path)))
    else:
        for i, l in enumerate(open(path)):
            walk(json.loads(l))
    return vals
ok = True
for name, m in F.items():
    p = os.path.join(D, name)
    vals = decoded_strings(p)
    facts = [f for f, _ in m['facts']]
    for f in facts:
        assert 20 <= len(f) <= 160 and f == f.strip() and '\n' not in f, f
        hit = [v for v in vals if f in v]
        print(('OK  ' if hit else 'MISS'), len(hit), f[:70])
        ok &= bool(hit)
    base = name.rsplit('.', 1)[0]
    json.dump({'transcript': name, 'format': m['format'], 'ecosystem': m['ecosystem'], 'description': m['description'], 'requiredFacts': facts, 'why': [w for _, w in m['facts']]}, open(os.path.join(D, base + '.facts.json'), 'w'), indent=2, ensure_ascii=False)
print('ALL OK' if ok else 'SOME MISSING')
