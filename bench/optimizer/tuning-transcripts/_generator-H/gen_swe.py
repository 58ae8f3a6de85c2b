import json, sys
sys.path.insert(0, '/work/tuneset-H/_generator')
from common import R, rhex
R.seed(9191)
REPO = '/fastmoney__fastmoney'
ISSUE = '''MoneyDeserializer drops trailing zeros / scale of numeric amounts
**Describe the bug**
Since 2.3.0 a `Money` read from JSON where the amount is a JSON *number* loses its scale. `{"amount": 10.50, "currency": "EUR"}` deserializes to `Money[10.5 EUR]`, so `money.getAmount().scale()` is 1 and `equals` against `Money.of("10.50", "EUR")` fails. String amounts (`"amount": "10.50"`) are fine. Large amounts are also corrupted: `12345678901234567.89` comes back as `12345678901234568`.

**To Reproduce**
```java
ObjectMapper mapper = new ObjectMapper().registerModule(new MoneyModule());
Money m = mapper.readValue("{\\"amount\\": 10.50, \\"currency\\": \\"EUR\\"}", Money.class);
System.out.println(m.getAmount().scale()); // 1, expected 2
```

**Expected behavior**
The amount keeps exactly the digits written in the JSON, for numbers as well as strings.

**Constraints**
This is a patch release: please don't change the public `Money` constructor or any public signature in `money-core`, and don't add new dependencies.

**Comments**
> **@hkessler (maintainer)**: Note the `ObjectMapper` users register `MoneyModule` into is *their* mapper, so don't enable `DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS` globally (we had that in 1.x and it broke everyone's `double` fields). Read the token with `p.getDecimalValue()` inside the deserializer instead; for `VALUE_NUMBER_INT` keep scale 0.
'''
steps = []
def S(thought, action, obs, state_file='n/a'):
    if action.startswith('mvn -q'):
        obs = '\n'.join(l for l in obs.split('\n') if not l.startswith(('Download', '[INFO] Scanning', '[INFO] Reactor', '[INFO] fastmoney', '[INFO] money-', '[INFO] ---')))
    steps.append((thought, action, obs, state_file))

DESER = '''package com.fastmoney.jackson;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fastmoney.core.CurrencyUnit;
import com.fastmoney.core.Money;

import java.io.IOException;
import java.math.BigDecimal;

/**
 * Reads {@code {"amount": ..., "currency": "EUR"}} into {@link Money}.
 */
public final class MoneyDeserializer extends StdDeserializer<Money> {

    public MoneyDeserializer() {
        super(Money.class);
    }

    @Override
    public Money deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        BigDecimal amount = null;
        String currency = null;
        if (p.currentToken() == JsonToken.START_OBJECT) {
            p.nextToken();
        }
        while (p.currentToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "amount":
                    if (t == JsonToken.VALUE_STRING) {
                        amount = new BigDecimal(p.getText().trim());
                    } else if (t.isNumeric()) {
                        amount = BigDecimal.valueOf(p.getDoubleValue());
                    } else {
                        return (Money) ctxt.handleUnexpectedToken(Money.class, p);
                    }
                    break;
                case "currency":
                    currency = p.getValueAsString();
                    break;
                default:
                    ctxt.handleUnknownProperty(p, this, Money.class, field);
            }
            p.nextToken();
        }
        if (amount == null || currency == null) {
            throw ctxt.weirdStringException(String.valueOf(amount), Money.class, "amount and currency are required");
        }
        return new Money(amount, CurrencyUnit.of(currency));
    }
}
'''
def view(path, text, start, total=None, window=100):
    lines = text.split('\n')
    total = total or len(lines)
    s = max(1, start)
    e = min(total, s + window - 1)
    out = [f'[File: {path} ({total} lines total)]']
    if s > 1: out.append(f'({s-1} more lines above)')
    for i in range(s, e + 1):
        out.append(f'{i}:{lines[i-1] if i-1 < len(lines) else ""}')
    if e < total: out.append(f'({total-e} more lines below)')
    return '\n'.join(out)

def mvn_log(n_lines, tail):
    L = ['[INFO] Scanning for projects...', '[INFO] ------------------------------------------------------------------------', '[INFO] Reactor Build Order:', '[INFO] ', '[INFO] fastmoney-parent                                                  [pom]', '[INFO] money-core                                                        [jar]', '[INFO] money-jackson                                                     [jar]', '[INFO] money-bom                                                         [pom]']
    arts = ['com/fasterxml/jackson/core/jackson-databind/2.17.1/jackson-databind-2.17.1', 'com/fasterxml/jackson/core/jackson-core/2.17.1/jackson-core-2.17.1', 'org/junit/jupiter/junit-jupiter-engine/5.10.2/junit-jupiter-engine-5.10.2', 'org/apache/maven/surefire/surefire-junit-platform/3.2.5/surefire-junit-platform-3.2.5', 'org/assertj/assertj-core/3.25.3/assertj-core-3.25.3', 'org/apache/maven/plugins/maven-compiler-plugin/3.12.1/maven-compiler-plugin-3.12.1', 'org/codehaus/plexus/plexus-utils/3.5.1/plexus-utils-3.5.1', 'org/ow2/asm/asm/9.6/asm-9.6', 'org/apiguardian/apiguardian-api/1.1.2/apiguardian-api-1.1.2', 'org/opentest4j/opentest4j/1.3.0/opentest4j-1.3.0']
    while len(L) < n_lines:
        a = R.choice(arts)
        ext = R.choice(['pom', 'jar'])
        L.append(f'Downloading from central: https://repo.maven.apache.org/maven2/{a}.{ext}')
        L.append(f'Downloaded from central: https://repo.maven.apache.org/maven2/{a}.{ext} ({R.randint(2, 1900)} kB at {R.uniform(0.5, 9):.1f} MB/s)')
    return '\n'.join(L) + '\n' + tail

TEST_OK_LINES = ['[INFO] Tests run: %d, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: %.3f s -- in com.fastmoney.%s' % (R.randint(3, 30), R.uniform(0.01, 0.9), c) for c in ['core.MoneyTest', 'core.CurrencyUnitTest', 'core.RoundingTest', 'core.AllocationTest', 'jackson.MoneySerializerTest', 'jackson.CurrencyUnitDeserializerTest', 'jackson.MoneyModuleTest']]

S("Let me look at the repository layout first.", 'ls -F', 'LICENSE\nREADME.md\nmoney-bom/\nmoney-core/\nmoney-jackson/\nmvnw*\npom.xml\n')
S("The deserializer is probably in money-jackson. Let me find it.", 'find_file "MoneyDeserializer.java"', 'Found 1 matches for "MoneyDeserializer.java" in /fastmoney__fastmoney:\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java')
DP = f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java'
S("Let's open it.", f'open {DP}', view(DP, DESER, 1), DP)
S("Line 38 uses `BigDecimal.valueOf(p.getDoubleValue())`, which goes through a double. That loses the scale and precision. First I'll reproduce with a test. Let me see the existing tests.", 'find_file "MoneyDeserializerTest.java"', 'Found 1 matches for "MoneyDeserializerTest.java" in /fastmoney__fastmoney:\n/fastmoney__fastmoney/money-jackson/src/test/java/com/fastmoney/jackson/MoneyDeserializerTest.java', DP)
TP = f'{REPO}/money-jackson/src/test/java/com/fastmoney/jackson/MoneyDeserializerTest.java'
TEST = '''package com.fastmoney.jackson;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fastmoney.core.Money;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.junit.jupiter.api.Assertions.assertEquals;

class MoneyDeserializerTest {

    private final ObjectMapper mapper = new ObjectMapper().registerModule(new MoneyModule());

    @Test
    void readsStringAmount() throws Exception {
        Money m = mapper.readValue("{\\"amount\\": \\"10.50\\", \\"currency\\": \\"EUR\\"}", Money.class);
        assertEquals(new BigDecimal("10.50"), m.getAmount());
    }

    @Test
    void readsCurrency() throws Exception {
        Money m = mapper.readValue("{\\"amount\\": \\"1\\", \\"currency\\": \\"JPY\\"}", Money.class);
        assertEquals("JPY", m.getCurrency().getCode());
    }
}
'''
S("Let me view the test file.", f'open {TP}', view(TP, TEST, 1), TP)
TEST2_ADD = '''
    @Test
    void keepsScaleOfNumericAmount() throws Exception {
        Money m = mapper.readValue("{\\"amount\\": 10.50, \\"currency\\": \\"EUR\\"}", Money.class);
        assertEquals(new BigDecimal("10.50"), m.getAmount());
    }

    @Test
    void keepsPrecisionOfLargeNumericAmount() throws Exception {
        Money m = mapper.readValue("{\\"amount\\": 12345678901234567.89, \\"currency\\": \\"EUR\\"}", Money.class);
        assertEquals(new BigDecimal("12345678901234567.89"), m.getAmount());
    }

    @Test
    void keepsScaleZeroForIntegerAmount() throws Exception {
        Money m = mapper.readValue("{\\"amount\\": 10, \\"currency\\": \\"EUR\\"}", Money.class);
        assertEquals(new BigDecimal("10"), m.getAmount());
    }
}'''
TEST2 = TEST.rstrip('\n')[:-1].rstrip('\n') + '\n' + TEST2_ADD + '\n'
S("I'll add tests for numeric amounts from the issue: scale, large precision, and integer (scale 0, per the maintainer comment).", 'edit 25:25\n' + TEST2_ADD.lstrip('\n') + '\nend_of_edit', view(TP, TEST2, 1) + '\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.', TP)
FAIL1 = '''[ERROR] Tests run: 5, Failures: 2, Errors: 0, Skipped: 0, Time elapsed: 0.412 s <<< FAILURE! -- in com.fastmoney.jackson.MoneyDeserializerTest
[ERROR] com.fastmoney.jackson.MoneyDeserializerTest.keepsScaleOfNumericAmount -- Time elapsed: 0.021 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <10.50> but was: <10.5>
	at org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
	at org.junit.jupiter.api.AssertionFailureBuilder.buildAndThrow(AssertionFailureBuilder.java:132)
	at org.junit.jupiter.api.AssertEquals.failNotEqual(AssertEquals.java:197)
	at org.junit.jupiter.api.AssertEquals.assertEquals(AssertEquals.java:182)
	at org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:1156)
	at com.fastmoney.jackson.MoneyDeserializerTest.keepsScaleOfNumericAmount(MoneyDeserializerTest.java:30)
	at java.base/java.lang.reflect.Method.invoke(Method.java:580)
	at java.base/java.util.ArrayList.forEach(ArrayList.java:1596)

[ERROR] com.fastmoney.jackson.MoneyDeserializerTest.keepsPrecisionOfLargeNumericAmount -- Time elapsed: 0.002 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <12345678901234567.89> but was: <12345678901234568>
	at org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
	at org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:1156)
	at com.fastmoney.jackson.MoneyDeserializerTest.keepsPrecisionOfLargeNumericAmount(MoneyDeserializerTest.java:36)
	at java.base/java.lang.reflect.Method.invoke(Method.java:580)

[INFO] 
[INFO] Results:
[INFO] 
[ERROR] Failures: 
[ERROR]   MoneyDeserializerTest.keepsPrecisionOfLargeNumericAmount:36 expected: <12345678901234567.89> but was: <12345678901234568>
[ERROR]   MoneyDeserializerTest.keepsScaleOfNumericAmount:30 expected: <10.50> but was: <10.5>
[INFO] 
[ERROR] Tests run: 5, Failures: 2, Errors: 0, Skipped: 0
[INFO] 
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------'''
S("Now run the module's tests. Maven will need to resolve dependencies first.", 'mvn -pl money-jackson -am test', mvn_log(520, '\n'.join(TEST_OK_LINES[:4]) + '\n[INFO] Running com.fastmoney.jackson.MoneyDeserializerTest\n' + FAIL1), TP)
S("Both numeric tests fail as described. The quick way to get BigDecimal tokens everywhere would be to enable USE_BIG_DECIMAL_FOR_FLOATS on the mapper when the module is registered. Let me look at MoneyModule.", 'find_file "MoneyModule.java"', f'Found 1 matches for "MoneyModule.java" in {REPO}:\n{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyModule.java', TP)
MP = f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyModule.java'
MOD = '''package com.fastmoney.jackson;

import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fastmoney.core.CurrencyUnit;
import com.fastmoney.core.Money;

import java.util.List;

public final class MoneyModule extends SimpleModule {

    public MoneyModule() {
        super("fastmoney", new Version(2, 3, 1, null, "com.fastmoney", "money-jackson"));
        addSerializer(Money.class, new MoneySerializer());
        addDeserializer(Money.class, new MoneyDeserializer());
        addDeserializer(CurrencyUnit.class, new CurrencyUnitDeserializer());
    }

    @Override
    public void setupModule(SetupContext context) {
        super.setupModule(context);
    }

    @Override
    public Iterable<? extends Module> getDependencies() {
        return List.of(new LegacyMoneyModule());
    }
}
'''
S("", f'open {MP}', view(MP, MOD, 1), MP)
S("I'll enable the feature in setupModule via the owner codec. This makes the parser hand out BigDecimal for floats.", 'edit 17:20\n    @Override\n    public void setupModule(SetupContext context) {\n        super.setupModule(context);\n        ObjectMapper owner = context.getOwner();\n        owner.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);\n    }\nend_of_edit', view(MP, MOD.replace('        super.setupModule(context);\n    }', '        super.setupModule(context);\n        ObjectMapper owner = context.getOwner();\n        owner.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);\n    }'), 1) + '\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.', MP)
S("Add imports.", 'edit 3:3\nimport com.fasterxml.jackson.core.Version;\nimport com.fasterxml.jackson.databind.DeserializationFeature;\nimport com.fasterxml.jackson.databind.ObjectMapper;\nend_of_edit', 'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.', MP)
FAIL_MOD = '''[INFO] Running com.fastmoney.jackson.MoneyModuleTest
[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.088 s <<< FAILURE! -- in com.fastmoney.jackson.MoneyModuleTest
[ERROR] com.fastmoney.jackson.MoneyModuleTest.doesNotChangeMapperFeatures -- Time elapsed: 0.011 s <<< FAILURE!
org.opentest4j.AssertionFailedError: registering MoneyModule must not change mapper features ==> expected: <false> but was: <true>
	at org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
	at org.junit.jupiter.api.Assertions.assertFalse(Assertions.java:270)
	at com.fastmoney.jackson.MoneyModuleTest.doesNotChangeMapperFeatures(MoneyModuleTest.java:41)

[INFO] Running com.fastmoney.jackson.MoneyDeserializerTest
[INFO] Tests run: 5, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.402 s -- in com.fastmoney.jackson.MoneyDeserializerTest
[INFO] 
[INFO] Results:
[INFO] 
[ERROR] Failures: 
[ERROR]   MoneyModuleTest.doesNotChangeMapperFeatures:41 registering MoneyModule must not change mapper features ==> expected: <false> but was: <true>
[INFO] 
[ERROR] Tests run: 24, Failures: 1, Errors: 0, Skipped: 0
[INFO] BUILD FAILURE'''
S("Run the module tests again.", 'mvn -q -pl money-jackson test', mvn_log(200, '\n'.join(TEST_OK_LINES[4:6]) + '\n' + FAIL_MOD), MP)
S("The deserializer tests pass now, but `MoneyModuleTest.doesNotChangeMapperFeatures` fails. That is exactly what the maintainer comment in the issue warns about: the mapper belongs to the user, so `USE_BIG_DECIMAL_FOR_FLOATS` must not be enabled globally. I'll revert this change to MoneyModule and fix it in the deserializer with `p.getDecimalValue()`.", f'open {MP}', view(MP, MOD.replace('import com.fasterxml.jackson.core.Version;\n', 'import com.fasterxml.jackson.core.Version;\nimport com.fasterxml.jackson.databind.DeserializationFeature;\nimport com.fasterxml.jackson.databind.ObjectMapper;\n').replace('        super.setupModule(context);\n    }', '        super.setupModule(context);\n        ObjectMapper owner = context.getOwner();\n        owner.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);\n    }'), 1), MP)
S("Revert the setupModule body.", 'edit 19:24\n    @Override\n    public void setupModule(SetupContext context) {\n        super.setupModule(context);\n    }\nend_of_edit', 'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.', MP)
S("And the imports.", 'edit 4:5\nend_of_edit', view(MP, MOD, 1) + '\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.', MP)
S("Confirm MoneyModule is back to the original.", 'git diff --stat', ' .../com/fastmoney/jackson/MoneyDeserializerTest.java | 18 ++++++++++++++++++\n 1 file changed, 18 insertions(+)', MP)
# exploration filler
S("Let me look at MoneyModuleTest to understand what it checks.", 'find_file "MoneyModuleTest.java"', f'Found 1 matches for "MoneyModuleTest.java" in {REPO}:\n{REPO}/money-jackson/src/test/java/com/fastmoney/jackson/MoneyModuleTest.java', MP)
MTP = f'{REPO}/money-jackson/src/test/java/com/fastmoney/jackson/MoneyModuleTest.java'
MT = '\n'.join(['package com.fastmoney.jackson;', ''] + ['import ' + R.choice(['com.fasterxml.jackson.databind.ObjectMapper', 'org.junit.jupiter.api.Test', 'com.fasterxml.jackson.databind.DeserializationFeature', 'static org.junit.jupiter.api.Assertions.assertFalse']) + ';' for _ in range(6)] + ['', 'class MoneyModuleTest {'] + ['    ' + R.choice(['@Test', 'void registersSerializer() {', '    ObjectMapper m = new ObjectMapper();', '    m.registerModule(new MoneyModule());', '}', '']) for _ in range(28)] + ['    @Test', '    void doesNotChangeMapperFeatures() {', '        ObjectMapper m = new ObjectMapper().registerModule(new MoneyModule());', '        assertFalse(m.isEnabled(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS), "registering MoneyModule must not change mapper features");', '    }', '}', ''])
S("", f'open {MTP}', view(MTP, MT, 1), MTP)
S("Now search for other uses of getDoubleValue in the codebase, there may be more places with the same problem.", 'search_dir "getDoubleValue"', 'Found 3 matches for "getDoubleValue" in /fastmoney__fastmoney:\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java (1 matches)\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/RateDeserializer.java (2 matches)\nEnd of matches for "getDoubleValue" in /fastmoney__fastmoney', MTP)
RP = f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/RateDeserializer.java'
S("RateDeserializer also uses it, but exchange rates are documented as doubles. Let me check.", f'search_file "getDoubleValue" {RP}', f'Found 2 matches for "getDoubleValue" in {RP}:\nLine 29:            double rate = p.getDoubleValue();\nLine 44:            return new Rate(from, to, p.getDoubleValue());\nEnd of matches for "getDoubleValue" in {RP}', MTP)
S("Rates are `double` by design (the `Rate` constructor takes a double), so they're out of scope. Let's look at the Money class in money-core to know how the constructor treats scale.", 'find_file "Money.java" money-core', f'Found 1 matches for "Money.java" in {REPO}/money-core:\n{REPO}/money-core/src/main/java/com/fastmoney/core/Money.java', MTP)
MONP = f'{REPO}/money-core/src/main/java/com/fastmoney/core/Money.java'
MONEY = ['package com.fastmoney.core;', '', 'import java.io.Serializable;', 'import java.math.BigDecimal;', 'import java.math.RoundingMode;', 'import java.util.Objects;', '', '/**', ' * An immutable amount of money in one currency. The amount keeps the scale it was created with.', ' */', 'public final class Money implements Comparable<Money>, Serializable {', '', '    private static final long serialVersionUID = 3L;', '', '    private final BigDecimal amount;', '    private final CurrencyUnit currency;', '', '    public Money(BigDecimal amount, CurrencyUnit currency) {', '        this.amount = Objects.requireNonNull(amount, "amount");', '        this.currency = Objects.requireNonNull(currency, "currency");', '    }', '']
for i in range(380):
    MONEY.append(R.choice(['    public Money plus(Money other) {', '        requireSameCurrency(other);', '        return new Money(amount.add(other.amount), currency);', '    }', '', '    /** Returns the amount with the currency\'s default scale. */', '    public Money rounded(RoundingMode mode) {', '        return new Money(amount.setScale(currency.getDefaultFractionDigits(), mode), currency);', '    @Override', '    public boolean equals(Object o) {', '        if (this == o) return true;', '        return o instanceof Money m && amount.equals(m.amount) && currency.equals(m.currency);', '    public static Money of(String amount, String currency) {', '        return new Money(new BigDecimal(amount), CurrencyUnit.of(currency));']))
MONEY += ['}', '']
MONEY = '\n'.join(MONEY)
S("", f'open {MONP}', view(MONP, MONEY, 1), MONP)
for ln in [101, 201, 301]:
    S("Let me scroll through the rest of Money to check there is no normalisation (stripTrailingZeros) anywhere.", 'scroll_down', view(MONP, MONEY, ln), MONP)
S("Search for stripTrailingZeros to be sure.", 'search_dir "stripTrailingZeros"', 'Found 1 matches for "stripTrailingZeros" in /fastmoney__fastmoney:\n/fastmoney__fastmoney/money-core/src/main/java/com/fastmoney/core/Money.java (1 matches)\nEnd of matches for "stripTrailingZeros" in /fastmoney__fastmoney', MONP)
S("", f'search_file "stripTrailingZeros" {MONP}', f'Found 1 matches for "stripTrailingZeros" in {MONP}:\nLine 318:        return amount.stripTrailingZeros().toPlainString();\nEnd of matches for "stripTrailingZeros" in {MONP}', MONP)
S("That's only in `toDisplayString()`, not the constructor. Good: the constructor keeps the scale, so the loss is entirely in the deserializer line 38. Open the deserializer again.", f'open {DP} 30', view(DP, DESER, 1), DP)
DESER2 = DESER.replace('                        amount = BigDecimal.valueOf(p.getDoubleValue());', '                        amount = p.getDecimalValue();')
S("Replace line 38 with `p.getDecimalValue()`, as the maintainer suggested.", 'edit 38:38\n                        amount = p.getDecimalValue();\nend_of_edit', view(DP, DESER2, 1) + '\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.', DP)
FAIL2 = '''[INFO] Running com.fastmoney.jackson.MoneyDeserializerTest
[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.377 s <<< FAILURE! -- in com.fastmoney.jackson.MoneyDeserializerTest
[ERROR] com.fastmoney.jackson.MoneyDeserializerTest.keepsScaleOfNumericAmount -- Time elapsed: 0.019 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <10.50> but was: <10.5>
	at org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
	at org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:1156)
	at com.fastmoney.jackson.MoneyDeserializerTest.keepsScaleOfNumericAmount(MoneyDeserializerTest.java:30)

[INFO] 
[INFO] Results:
[INFO] 
[ERROR] Failures: 
[ERROR]   MoneyDeserializerTest.keepsScaleOfNumericAmount:30 expected: <10.50> but was: <10.5>
[INFO] 
[ERROR] Tests run: 24, Failures: 1, Errors: 0, Skipped: 0
[INFO] BUILD FAILURE'''
for k in range(3):
    S(["Run the tests.", "Still failing on scale but precision passes now. Strange. Run again to be sure it's not a stale build.", "Same result. Let me look at the surefire report for details."][k], 'mvn -q -pl money-jackson test -Dtest=MoneyDeserializerTest' if k else 'mvn -q -pl money-jackson test', mvn_log(120 if k else 260, FAIL2), DP)
SUREP = f'{REPO}/money-jackson/target/surefire-reports/TEST-com.fastmoney.jackson.MoneyDeserializerTest.xml'
props = '\n'.join(f'    <property name="{n}" value="{v}"/>' for n, v in [(R.choice(['java.vm.version', 'sun.boot.library.path', 'user.dir', 'java.class.path', 'os.name', 'maven.repo.local', 'surefire.test.class.path', 'java.home', 'file.encoding', 'line.separator']) + ('.%d' % i if i > 9 else ''), '/root/.m2/repository/' + '/'.join(rhex(6) for _ in range(6)) + '.jar:' * 3) for i in range(70)])
SURE = f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" name="com.fastmoney.jackson.MoneyDeserializerTest" time="0.377" tests="5" errors="0" skipped="0" failures="1">\n  <properties>\n{props}\n  </properties>\n  <testcase name="readsStringAmount" classname="com.fastmoney.jackson.MoneyDeserializerTest" time="0.31"/>\n  <testcase name="keepsScaleOfNumericAmount" classname="com.fastmoney.jackson.MoneyDeserializerTest" time="0.019">\n    <failure message="expected: &lt;10.50&gt; but was: &lt;10.5&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <10.50> but was: <10.5>\n\tat com.fastmoney.jackson.MoneyDeserializerTest.keepsScaleOfNumericAmount(MoneyDeserializerTest.java:30)\n]]></failure>\n    <system-out><![CDATA[DEBUG c.f.j.MoneyDeserializer - amount token VALUE_NUMBER_FLOAT, parser feature USE_FAST_BIG_NUMBER_PARSER=true, numberType=DOUBLE\n]]></system-out>\n  </testcase>\n  <testcase name="keepsPrecisionOfLargeNumericAmount" classname="com.fastmoney.jackson.MoneyDeserializerTest" time="0.002"/>\n  <testcase name="keepsScaleZeroForIntegerAmount" classname="com.fastmoney.jackson.MoneyDeserializerTest" time="0.001"/>\n  <testcase name="readsCurrency" classname="com.fastmoney.jackson.MoneyDeserializerTest" time="0.001"/>\n</testsuite>'
S("", f'cat {SUREP}', SURE, DP)
S("The system-out says numberType=DOUBLE: the parser already parsed the number as a double before getDecimalValue() was called. Something calls a numeric accessor on the token before line 38. Let me search for numberType / getNumberValue in the module.", 'search_dir "getNumberValue\\|getNumberType\\|DEBUG" money-jackson/src/main', 'Found 2 matches in /fastmoney__fastmoney/money-jackson/src/main:\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java (0 matches)\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/JsonLogging.java (2 matches)\nEnd of matches', DP)
JLP = f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/JsonLogging.java'
JL = '\n'.join(['package com.fastmoney.jackson;', '', 'import com.fasterxml.jackson.core.JsonParser;', 'import org.slf4j.Logger;', '', 'final class JsonLogging {', '    private JsonLogging() {}', '', '    static void traceToken(Logger log, JsonParser p) throws java.io.IOException {', '        if (log.isDebugEnabled() && p.currentToken().isNumeric()) {', '            log.debug("amount token {}, parser feature USE_FAST_BIG_NUMBER_PARSER={}, numberType={}",', '                p.currentToken(), p.isEnabled(JsonParser.Feature.USE_FAST_BIG_NUMBER_PARSER), p.getNumberType());', '        }', '    }', '}', ''])
S("", f'open {JLP}', view(JLP, JL, 1), JLP)
S("`getNumberType()` only reports the type; it shouldn't convert. But who calls traceToken? It's not in MoneyDeserializer per the search. Let's search for the call.", 'search_dir "traceToken"', 'Found 2 matches for "traceToken" in /fastmoney__fastmoney:\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/JsonLogging.java (1 matches)\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java (1 matches)\nEnd of matches for "traceToken" in /fastmoney__fastmoney', JLP)
ARP = f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java'
AR = '\n'.join(['package com.fastmoney.jackson;', '', 'import com.fasterxml.jackson.core.JsonParser;', 'import com.fasterxml.jackson.core.JsonToken;', 'import org.slf4j.Logger;', 'import org.slf4j.LoggerFactory;', '', 'import java.io.IOException;', 'import java.math.BigDecimal;', '', '/** Shared by MoneyDeserializer and the streaming MoneyArrayReader. */', 'final class AmountReader {', '    private static final Logger LOG = LoggerFactory.getLogger(MoneyDeserializer.class);', '', '    private AmountReader() {}', '', '    static BigDecimal read(JsonParser p) throws IOException {', '        JsonLogging.traceToken(LOG, p);', '        JsonToken t = p.currentToken();', '        if (t == JsonToken.VALUE_NUMBER_INT) {', '            return BigDecimal.valueOf(p.getLongValue());', '        }', '        double d = p.getDoubleValue();', '        return new BigDecimal(Double.toString(d));', '    }', '}', ''])
S("", f'open {ARP}', view(ARP, AR, 1), ARP)
S("AmountReader is a second copy of the amount parsing, used by MoneyArrayReader. It's not used by MoneyDeserializer. Wait — the surefire log line says `MoneyDeserializer` because LOG uses MoneyDeserializer.class. So who calls AmountReader in this test? Search.", 'search_dir "AmountReader.read"', 'Found 2 matches for "AmountReader.read" in /fastmoney__fastmoney:\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java (1 matches)\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/MoneyModule.java (1 matches)\nEnd of matches for "AmountReader.read" in /fastmoney__fastmoney', ARP)
S("MoneyModule references AmountReader.read? The file I opened earlier had no such line. Let me reopen MoneyModule.", f'open {MP}', view(MP, MOD, 1), MP)
S("The MoneyModule source has no AmountReader call that I remember; search_dir may be matching a file in target/. Let me check with grep.", 'grep -rn "AmountReader.read" --include=*.java .', './money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java:57:            BigDecimal amount = AmountReader.read(p);\n./money-jackson/target/generated-sources/delombok/com/fastmoney/jackson/MoneyModule.java:31:        addDeserializer(BigDecimal.class, (p, c) -> AmountReader.read(p));', ARP)
S("The MoneyModule hit was a stale generated file under target/. Let me do a clean build to rule out stale classes.", 'mvn -q -pl money-jackson clean test -Dtest=MoneyDeserializerTest', mvn_log(150, FAIL2), ARP)
S("Still failing after a clean build, so it's not stale classes. Let me write a small debug program to see what token and number type the parser has at the amount field.", 'create money-jackson/src/test/java/com/fastmoney/jackson/Repro.java', f'[File: {REPO}/money-jackson/src/test/java/com/fastmoney/jackson/Repro.java (1 lines total)]\n1:', f'{REPO}/money-jackson/src/test/java/com/fastmoney/jackson/Repro.java')
REP = f'{REPO}/money-jackson/src/test/java/com/fastmoney/jackson/Repro.java'
RCODE = 'package com.fastmoney.jackson;\n\nimport com.fasterxml.jackson.core.*;\n\npublic class Repro {\n    public static void main(String[] a) throws Exception {\n        JsonParser p = new JsonFactory().createParser("{\\"amount\\": 10.50}");\n        p.nextToken(); p.nextToken(); p.nextToken();\n        System.out.println(p.currentToken() + " " + p.getText() + " " + p.getDecimalValue());\n        JsonParser q = new com.fasterxml.jackson.databind.ObjectMapper().getFactory().createParser("{\\"amount\\": 10.50}");\n        q.nextToken(); q.nextToken(); q.nextToken();\n        System.out.println(q.getNumberType() + " " + q.getDecimalValue());\n    }\n}'
S("", 'edit 1:1\n' + RCODE + '\nend_of_edit', view(REP, RCODE, 1) + '\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.', REP)
S("Compile and run it with the test classpath.", 'mvn -q -pl money-jackson test-compile exec:java -Dexec.mainClass=com.fastmoney.jackson.Repro -Dexec.classpathScope=test', 'VALUE_NUMBER_FLOAT 10.50 10.50\nDOUBLE 10.5', REP)
S("Interesting: `getDecimalValue()` returns 10.50 on a fresh parser, but after `getNumberType()` it returns 10.5 — in jackson-core 2.17 `getNumberType()` on a float token parses the number as a double and caches it, and a later `getDecimalValue()` converts from the cached double. So any accessor call before `getDecimalValue()` loses the scale. MoneyDeserializer must call `p.getDecimalValue()` before anything inspects the number. But my MoneyDeserializer doesn't call getNumberType... unless `t.isNumeric()` — no, that's on the token. Let me look at the deserializer once more, line 30 onward.", f'open {DP} 30', view(DP, DESER2, 1), DP)
S("Nothing there. The test's mapper is `new ObjectMapper().registerModule(new MoneyModule())`. Maybe deserialization goes through a different deserializer: MoneyArrayReader or a BeanDeserializer for Money via @JsonCreator in money-core? Search for JsonCreator.", 'search_dir "@JsonCreator"', 'No matches found for "@JsonCreator" in /fastmoney__fastmoney', DP)
S("No. Let me check which deserializer Jackson actually picks with a stack trace from inside getDecimalValue: add a temporary breakpoint-style print in the test.", 'search_dir "addDeserializer(Money.class"', 'Found 2 matches for "addDeserializer(Money.class" in /fastmoney__fastmoney:\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/MoneyModule.java (1 matches)\n/fastmoney__fastmoney/money-jackson/src/main/java/com/fastmoney/jackson/LegacyMoneyModule.java (1 matches)\nEnd of matches for "addDeserializer(Money.class" in /fastmoney__fastmoney', DP)
LMP = f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/LegacyMoneyModule.java'
LM = '\n'.join(['package com.fastmoney.jackson;', '', 'import com.fasterxml.jackson.databind.module.SimpleModule;', 'import com.fastmoney.core.Money;', '', '/** Auto-registered through META-INF/services for 1.x compatibility. */', '@Deprecated', 'public final class LegacyMoneyModule extends SimpleModule {', '    public LegacyMoneyModule() {', '        super("fastmoney-legacy");', '        addDeserializer(Money.class, (JsonDeserializer<Money>) new MoneyArrayReader.SingleMoneyDeserializer());', '    }', '}', ''])
S("", f'open {LMP}', view(LMP, LM, 1), LMP)
S("LegacyMoneyModule also registers a Money deserializer, via MoneyArrayReader.SingleMoneyDeserializer, which uses AmountReader.read — that calls `traceToken` (getNumberType) and then `p.getDoubleValue()`. But it's only registered via META-INF/services, i.e. `findAndRegisterModules()`. The test uses registerModule(new MoneyModule()). Let me check whether MoneyModule pulls it in via getDependencies().", 'grep -rn "LegacyMoneyModule\\|getDependencies\\|META-INF" money-jackson/src', 'money-jackson/src/main/resources/META-INF/services/com.fasterxml.jackson.databind.Module:1:com.fastmoney.jackson.LegacyMoneyModule\nmoney-jackson/src/main/java/com/fastmoney/jackson/MoneyModule.java:22:    public Iterable<? extends Module> getDependencies() {\nmoney-jackson/src/main/java/com/fastmoney/jackson/MoneyModule.java:23:        return List.of(new LegacyMoneyModule());', LMP)
S("So MoneyModule declares LegacyMoneyModule as a dependency in getDependencies(), which I overlooked earlier. Let me reopen MoneyModule.", f'open {MP}', view(MP, MOD, 1), MP)
S("Right: MoneyModule declares LegacyMoneyModule as a dependency, and Jackson registers dependencies first, then MoneyModule... In Jackson, a later addDeserializer for the same type wins only if its Deserializers is consulted first; `SimpleDeserializers` from modules registered later are *prepended*, so the order depends. The failing path is AmountReader (traceToken → getNumberType → cached double). The fix that keeps all public signatures: make `AmountReader.read` use `p.getDecimalValue()` first for floats and `BigDecimal.valueOf(p.getLongValue())` for ints, and move `traceToken` after reading. Let's look at MoneyArrayReader first.", 'open ' + f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java 40', '\n'.join([f'[File: {REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java (112 lines total)]', '(39 more lines above)'] + [f'{i}:' + R.choice(['        while (p.nextToken() != JsonToken.END_ARRAY) {', '            String field = p.currentName();', '            JsonToken t = p.nextToken();', '            BigDecimal amount = AmountReader.read(p);' if i == 57 else '            p.skipChildren();', '        }', '    static final class SingleMoneyDeserializer extends StdDeserializer<Money> {' if i == 88 else '']) for i in range(40, 112)] + ['(1 more lines below)']), f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java')
POMP = f'{REPO}/money-jackson/pom.xml'
POM = '\n'.join(['<?xml version="1.0" encoding="UTF-8"?>', '<project xmlns="http://maven.apache.org/POM/4.0.0">', '  <modelVersion>4.0.0</modelVersion>', '  <parent>', '    <groupId>com.fastmoney</groupId>', '    <artifactId>fastmoney-parent</artifactId>', '    <version>2.3.1-SNAPSHOT</version>', '  </parent>', '  <artifactId>money-jackson</artifactId>', '  <dependencies>'] + ['    <dependency><groupId>%s</groupId><artifactId>%s</artifactId>%s</dependency>' % x for x in [('com.fastmoney', 'money-core', ''), ('com.fasterxml.jackson.core', 'jackson-databind', ''), ('org.slf4j', 'slf4j-api', ''), ('org.junit.jupiter', 'junit-jupiter', '<scope>test</scope>'), ('org.slf4j', 'slf4j-simple', '<scope>test</scope>')]] + ['  </dependencies>', '</project>', ''])
S("Check which jackson version the module uses.", f'open {POMP}', view(POMP, POM, 1), POMP)
tree = ['[INFO] com.fastmoney:money-jackson:jar:2.3.1-SNAPSHOT']
for i in range(300):
    tree.append('[INFO] ' + '|  ' * R.randint(0, 4) + R.choice(['+- ', '\\- ']) + R.choice(['com.fasterxml.jackson.core:jackson-databind:jar:2.17.1:compile', 'com.fasterxml.jackson.core:jackson-core:jar:2.17.1:compile', 'com.fasterxml.jackson.core:jackson-annotations:jar:2.17.1:compile', 'org.slf4j:slf4j-api:jar:2.0.12:compile', 'org.junit.jupiter:junit-jupiter-api:jar:5.10.2:test', 'org.opentest4j:opentest4j:jar:1.3.0:test', 'org.junit.platform:junit-platform-commons:jar:1.10.2:test', 'org.apiguardian:apiguardian-api:jar:1.1.2:test', 'com.fastmoney:money-core:jar:2.3.1-SNAPSHOT:compile', 'net.bytebuddy:byte-buddy:jar:1.14.12:test'] ) + (' (version managed from 2.15.2)' if R.random() < 0.1 else ''))
S("Let me see the resolved dependency tree to confirm jackson-core's version.", 'mvn -pl money-jackson dependency:tree -Dverbose', mvn_log(60, '\n'.join(tree) + '\n[INFO] BUILD SUCCESS'), POMP)
hits = []
for i in range(260):
    f = R.choice(['money-core/src/main/java/com/fastmoney/core/Money.java', 'money-core/src/main/java/com/fastmoney/core/Rounding.java', 'money-core/src/main/java/com/fastmoney/core/Allocation.java', 'money-core/src/test/java/com/fastmoney/core/MoneyTest.java', 'money-jackson/src/main/java/com/fastmoney/jackson/MoneySerializer.java', 'money-core/src/test/java/com/fastmoney/core/AllocationTest.java'])
    hits.append(f)
from collections import Counter
c = Counter(hits)
S("Search for BigDecimal usages to see whether anything else normalises amounts.", 'search_dir "BigDecimal"', 'Found %d matches for "BigDecimal" in /fastmoney__fastmoney:\n' % sum(c.values()) + '\n'.join(f'/fastmoney__fastmoney/{f} ({n} matches)' for f, n in c.items()) + '\nEnd of matches for "BigDecimal" in /fastmoney__fastmoney', POMP)
RT = f'{REPO}/money-core/src/main/java/com/fastmoney/core/Rounding.java'
S("Let me check one of them with many hits.", f'search_file "BigDecimal" {RT}', f'Found 120 matches for "BigDecimal" in {RT}:\n' + '\n'.join(f'Line {i*3+10}:        BigDecimal ' + R.choice(['scaled = amount.setScale(digits, mode);', 'half = BigDecimal.ONE.movePointLeft(digits + 1);', 'r = a.remainder(step);', 'q = a.divide(step, 0, RoundingMode.DOWN);']) for i in range(120)) + f'\nEnd of matches for "BigDecimal" in {RT}', RT)
S("Rounding only applies when the caller asks. Not related. Run the full reactor tests once to see the baseline of other modules.", 'mvn test', mvn_log(120, '\n'.join(TEST_OK_LINES) + '\n' + FAIL2), RT)
steps_pre_fix = len(steps)
AR2 = AR.replace('        JsonLogging.traceToken(LOG, p);\n        JsonToken t = p.currentToken();\n        if (t == JsonToken.VALUE_NUMBER_INT) {\n            return BigDecimal.valueOf(p.getLongValue());\n        }\n        double d = p.getDoubleValue();\n        return new BigDecimal(Double.toString(d));', '        JsonToken t = p.currentToken();\n        BigDecimal amount = t == JsonToken.VALUE_NUMBER_INT\n                ? new BigDecimal(p.getBigIntegerValue())\n                : p.getDecimalValue();\n        JsonLogging.traceToken(LOG, p);\n        return amount;')
S("Edit AmountReader.read: read the decimal first, then trace.", 'edit 17:25\n    static BigDecimal read(JsonParser p) throws IOException {\n        JsonToken t = p.currentToken();\n        BigDecimal amount = t == JsonToken.VALUE_NUMBER_INT\n                ? new BigDecimal(p.getBigIntegerValue())\n                : p.getDecimalValue();\n        JsonLogging.traceToken(LOG, p);\n        return amount;\n    }\nend_of_edit', view(ARP, AR2, 1) + '\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.', ARP)
FAIL3 = '''[INFO] Running com.fastmoney.jackson.MoneyDeserializerTest
[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.366 s <<< FAILURE! -- in com.fastmoney.jackson.MoneyDeserializerTest
[ERROR] com.fastmoney.jackson.MoneyDeserializerTest.keepsScaleOfNumericAmount -- Time elapsed: 0.018 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <10.50> but was: <10.5>
	at com.fastmoney.jackson.MoneyDeserializerTest.keepsScaleOfNumericAmount(MoneyDeserializerTest.java:30)
Caused by (logged): com.fastmoney.jackson.MoneyArrayReader$SingleMoneyDeserializer.deserialize(MoneyArrayReader.java:94) -> BigDecimal.valueOf(p.getDoubleValue())

[ERROR] Failures: 
[ERROR]   MoneyDeserializerTest.keepsScaleOfNumericAmount:30 expected: <10.50> but was: <10.5>
[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0
[INFO] BUILD FAILURE'''
S("Run the deserializer tests.", 'mvn -q -pl money-jackson test -Dtest=MoneyDeserializerTest', mvn_log(90, FAIL3), ARP)
S("Progress in understanding: the Money path actually used is `MoneyArrayReader$SingleMoneyDeserializer.deserialize` at MoneyArrayReader.java:94, which has its own `BigDecimal.valueOf(p.getDoubleValue())` instead of calling AmountReader. I need to change line 94 to use `AmountReader.read(p)`. Let me open it.", f'open {REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java 94', '\n'.join([f'[File: {REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java (112 lines total)]', '(43 more lines above)'] + [f'{i}:' + ('                    amount = BigDecimal.valueOf(p.getDoubleValue());' if i == 94 else R.choice(['            switch (field) {', '                case "amount":', '                    break;', '                case "currency":', '                    currency = p.getValueAsString();', '            }', ''])) for i in range(44, 112)] + ['(0 more lines below)']), f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java')
# pad with a few inspection steps
for q in ['git status', 'git diff']:
    S("Let me check the overall state of my changes before editing further.", q, (' M money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java\n M money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java\n M money-jackson/src/test/java/com/fastmoney/jackson/MoneyDeserializerTest.java\n?? money-jackson/src/test/java/com/fastmoney/jackson/Repro.java' if q == 'git status' else 'diff --git a/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java b/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java\n--- a/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java\n+++ b/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java\n@@ -15,11 +15,10 @@\n     static BigDecimal read(JsonParser p) throws IOException {\n-        JsonLogging.traceToken(LOG, p);\n         JsonToken t = p.currentToken();\n-        if (t == JsonToken.VALUE_NUMBER_INT) {\n-            return BigDecimal.valueOf(p.getLongValue());\n-        }\n-        double d = p.getDoubleValue();\n-        return new BigDecimal(Double.toString(d));\n+        BigDecimal amount = t == JsonToken.VALUE_NUMBER_INT\n+                ? new BigDecimal(p.getBigIntegerValue())\n+                : p.getDecimalValue();\n+        JsonLogging.traceToken(LOG, p);\n+        return amount;\n     }\ndiff --git a/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java b/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java\n@@ -35,7 +35,7 @@\n                     } else if (t.isNumeric()) {\n-                        amount = BigDecimal.valueOf(p.getDoubleValue());\n+                        amount = p.getDecimalValue();\n                     } else {'), f'{REPO}/money-jackson/src/main/java/com/fastmoney/jackson/MoneyArrayReader.java')
S("Remove the Repro helper so it doesn't end up in the patch.", 'rm money-jackson/src/test/java/com/fastmoney/jackson/Repro.java', '', 'n/a')

# ---------- emit ----------
SYSTEM = '''SETTING: You are an autonomous programmer, and you're working directly in the command line with a special interface.

The special interface consists of a file editor that shows you 100 lines of a file at a time.
In addition to typical bash commands, you can also use the following commands to help you navigate and edit files.

COMMANDS:
open:
  docstring: opens the file at the given path in the editor. If line_number is provided, the window will be move to include that line
  signature: open <path> [<line_number>]

goto:
  docstring: moves the window to show <line_number>
  signature: goto <line_number>

scroll_down:
  docstring: moves the window down 100 lines
  signature: scroll_down

create:
  docstring: creates and opens a new file with the given name
  signature: create <filename>

submit:
  docstring: submits your current code and terminates the session
  signature: submit

search_dir:
  docstring: searches for search_term in all files in dir. If dir is not provided, searches in the current directory
  signature: search_dir <search_term> [<dir>]

search_file:
  docstring: searches for search_term in file. If file is not provided, searches in the current open file
  signature: search_file <search_term> [<file>]

find_file:
  docstring: finds all files with the given name in dir. If dir is not provided, searches in the current directory
  signature: find_file <file_name> [<dir>]

edit:
  docstring: replaces lines <start_line> through <end_line> (inclusive) with the given text in the open file. The replacement text is terminated by a line with only end_of_edit on it.
  signature: edit <start_line>:<end_line>
<replacement_text>
end_of_edit

Please note that THE EDIT COMMAND REQUIRES PROPER INDENTATION.

RESPONSE FORMAT:
Your shell prompt is formatted as follows:
(Open file: <path>) <cwd> $

You need to format your output using two fields; discussion and command.
Your output should always include _one_ discussion and _one_ command field EXACTLY as in the following example:
DISCUSSION
First I'll start by using ls to see what files are in the current directory. Then maybe we can look at some relevant files to see what they look like.
```
ls -a
```
'''
INSTANCE = f'''We're currently solving the following issue within our repository. Here's the issue text:
ISSUE:
{ISSUE}

INSTRUCTIONS:
Now, you're going to solve this issue on your own. Your terminal session has started and you're in the repository's root directory. You can use any bash commands or the special interface to help you. Edit all the files you need to and run any checks or tests that you want.
Remember, YOU CAN ONLY ENTER ONE COMMAND AT A TIME. You should always wait for feedback after every command.
When you're satisfied with all of the changes you've made, you can submit your changes to the code base by simply running the submit command.
Note however that you cannot use any interactive session commands (e.g. python, vim) in this environment, but you can write scripts and run them.

(Open file: n/a)
(Current directory: {REPO})
bash-$'''
traj, hist = [], [{'role': 'system', 'content': SYSTEM, 'agent': 'primary'}, {'role': 'user', 'content': INSTANCE, 'agent': 'primary'}]
for idx, (thought, action, obs, sf) in enumerate(steps):
    th = thought or "Let's take a look."
    resp = f"{th}\n\n```\n{action}\n```"
    state = json.dumps({'open_file': sf, 'working_dir': REPO}) + '\n'
    traj.append({'action': action + '\n', 'observation': obs, 'response': resp, 'state': state, 'thought': th + '\n\n'})
    hist.append({'role': 'assistant', 'content': resp, 'thought': th + '\n\n', 'action': action + '\n', 'agent': 'primary'})
    if idx < len(steps) - 5 and obs.count('\n') > 30:
        obs_h = f'Old environment output: ({obs.count(chr(10)) + 1} lines omitted)'
    else:
        obs_h = obs
    hist.append({'role': 'user', 'content': f'{obs_h}\n(Open file: {sf})\n(Current directory: {REPO})\nbash-$', 'agent': 'primary'})
SUB = '''
diff --git a/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java b/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java
index 4be1d07..c93a2f1 100644
--- a/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java
+++ b/money-jackson/src/main/java/com/fastmoney/jackson/AmountReader.java
@@ -15,11 +15,10 @@ final class AmountReader {
     static BigDecimal read(JsonParser p) throws IOException {
-        JsonLogging.traceToken(LOG, p);
         JsonToken t = p.currentToken();
-        if (t == JsonToken.VALUE_NUMBER_INT) {
-            return BigDecimal.valueOf(p.getLongValue());
-        }
-        double d = p.getDoubleValue();
-        return new BigDecimal(Double.toString(d));
+        BigDecimal amount = t == JsonToken.VALUE_NUMBER_INT
+                ? new BigDecimal(p.getBigIntegerValue())
+                : p.getDecimalValue();
+        JsonLogging.traceToken(LOG, p);
+        return amount;
     }
 }
diff --git a/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java b/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java
index 7d21c3e..0a9f6b4 100644
--- a/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java
+++ b/money-jackson/src/main/java/com/fastmoney/jackson/MoneyDeserializer.java
@@ -35,7 +35,7 @@ public final class MoneyDeserializer extends StdDeserializer<Money> {
                     if (t == JsonToken.VALUE_STRING) {
                         amount = new BigDecimal(p.getText().trim());
                     } else if (t.isNumeric()) {
-                        amount = BigDecimal.valueOf(p.getDoubleValue());
+                        amount = p.getDecimalValue();
                     } else {
                         return (Money) ctxt.handleUnexpectedToken(Money.class, p);
                     }
'''
doc = {'environment': 'swe_main', 'trajectory': traj, 'history': hist, 'info': {'exit_status': 'submitted (exit_cost)', 'submission': SUB, 'model_stats': {'total_cost': 3.0214, 'instance_cost': 3.0214, 'tokens_sent': 1198342, 'tokens_received': 9120, 'api_calls': len(traj)}}}
path = '/work/tuneset-H/swe-agent-java-maven-jackson-money-scale.traj'
with open(path, 'w') as f: json.dump(doc, f, indent=2, ensure_ascii=False)
s = open(path).read()
print('steps', len(traj), 'events', 2 * len(traj) + 1, 'bytes', len(s.encode()), 'tok', len(s) // 4)
