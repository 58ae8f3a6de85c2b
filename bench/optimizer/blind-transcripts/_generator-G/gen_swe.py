import json, sys, os
sys.path.insert(0, os.path.dirname(__file__))
from common import rng, check_facts

R = rng(4242)
OUT = '/work/blindset-G/swe-agent-scala-json-codec-surrogate-escape.traj'
ROOT = '/tessera-json'
W = 'core/src/main/scala/tessera/json/JsonWriter.scala'
RD = 'core/src/main/scala/tessera/json/JsonReader.scala'

def filler_methods(prefix, n_lines, kind):
    out = []
    i = 0
    while len(out) < n_lines:
        i += 1
        if kind == 'w':
            block = ['  /** Writes a %s value. */' % prefix[i % len(prefix)],
                     '  def write%s%d(v: %s): Unit = {' % (prefix[i % len(prefix)].capitalize(), i, R.choice(['Int', 'Long', 'Double', 'Boolean', 'BigDecimal'])),
                     '    ensureCapacity(%d)' % R.choice([8, 16, 24, 32]),
                     '    writeRaw(v.toString)',
                     '  }', '']
        else:
            block = ['  /** Reads a %s token. */' % prefix[i % len(prefix)],
                     '  def read%s%d(): %s = {' % (prefix[i % len(prefix)].capitalize(), i, R.choice(['Int', 'Long', 'Double', 'Boolean', 'BigDecimal'])),
                     '    skipWhitespace()',
                     '    val start = pos',
                     '    while (pos < len && isNumberChar(buf(pos))) pos += 1',
                     '    parseSlice(start, pos)',
                     '  }', '']
        if len(out) + len(block) > n_lines:
            break
        out += block
    while len(out) < n_lines:
        out.append('')
    return out

def build_writer():
    head = ['package tessera.json', '', 'import java.io.Writer', '', '/** Streaming JSON writer.', ' *',
            ' *  Public API, covered by MiMa since 0.9.0.', ' */',
            'final class JsonWriter(out: java.lang.StringBuilder, val config: WriterConfig) {', '']
    lines = head + filler_methods(['number', 'long', 'double', 'bool', 'decimal'], 131 - len(head), 'w')
    # lines now 131 entries -> next is line 132
    block = [
        '  /** Escapes a single UTF-16 code unit or code point `c` (used by Encoder[Char]). */',
        '  def escapeChar(c: Int): Unit =',
        '    if (c == \'"\') out.append("\\\\\\"")',
        '    else if (c == \'\\\\\') out.append("\\\\\\\\")',
        '    else if (c < 0x20) writeControl(c)',
        '    else if (config.escapeUnicode && c > 0x7e) writeUnicodeEscape(c)',
        '    else out.appendCodePoint(c)',
        '',
        '  private def writeControl(c: Int): Unit = c match {',
        '    case \'\\n\' => out.append("\\\\n")',
        '    case \'\\r\' => out.append("\\\\r")',
        '    case \'\\t\' => out.append("\\\\t")',
        '    case \'\\b\' => out.append("\\\\b")',
        '    case \'\\f\' => out.append("\\\\f")',
        '    case _    => writeUnicodeEscape(c)',
        '  }',
        '',
        '  private def writeUnicodeEscape(c: Int): Unit = {',
        "    out.append('\\\\').append('u')",
        '    writeHex(c)',
        '  }',
        '',
        '  /** Writes `v` as lowercase hex, at least 4 digits. */',
        '  private def writeHex(v: Int): Unit = {',
        '    var shift = math.max(12, (31 - Integer.numberOfLeadingZeros(v)) / 4 * 4)',
        '    while (shift >= 0) {',
        '      out.append(HexDigits((v >>> shift) & 0xf))',
        '      shift -= 4',
        '    }',
        '  }',
        '  def writeString(s: String): Unit = {',
        "    out.append('\"')",
        '    var i = 0',
        '    val len = s.length',
        '    while (i < len) {',
        '      val cp = s.codePointAt(i)',
        '      escapeChar(cp)',
        '      i += Character.charCount(cp)',
        '    }',
        "    out.append('\"')",
        '  }',
        '']
    lines += block
    lines += filler_methods(['array', 'object', 'field', 'null', 'raw'], 312 - len(lines) - 8, 'w')
    lines += ['  private[this] val HexDigits: Array[Char] = "0123456789abcdef".toCharArray', '',
              '  private def ensureCapacity(n: Int): Unit = out.ensureCapacity(out.length + n)', '',
              '  private def writeRaw(s: String): Unit = out.append(s)', '', '}', '']
    return lines

def build_reader():
    head = ['package tessera.json', '', 'import scala.annotation.switch', '',
            'final class JsonReader(buf: Array[Char], len: Int, val config: ReaderConfig) {', '  private[this] var pos: Int = 0', '']
    lines = head + filler_methods(['int', 'long', 'double', 'bool', 'decimal', 'nullToken'], 183 - len(head), 'r')
    block = [
        '  private def readStringBody(): String = {',
        '    val sb = new java.lang.StringBuilder',
        '    while (true) {',
        '      val c = nextChar()',
        "      if (c == '\"') return sb.toString",
        "      if (c == '\\\\') {",
        '        (nextChar(): @switch) match {',
        "          case '\"' => sb.append('\"')",
        "          case '\\\\' => sb.append('\\\\')",
        "          case '/' => sb.append('/')",
        "          case 'n' => sb.append('\\n')",
        "          case 'r' => sb.append('\\r')",
        "          case 't' => sb.append('\\t')",
        "          case 'b' => sb.append('\\b')",
        "          case 'f' => sb.append('\\f')",
        "          case 'u' => sb.appendCodePoint(parseUnicodeEscape())",
        '          case other => throw new JsonParseException(s"invalid escape \\\\$other", pos)',
        '        }',
        '      } else sb.append(c)',
        '    }',
        '    throw new IllegalStateException("unreachable")',
        '  }',
        '',
        '  /** Called after `\\u` has been consumed. Returns a code point. */',
        '  private def parseUnicodeEscape(): Int = {',
        '    val hi = readHex4()',
        '    if (Character.isHighSurrogate(hi.toChar)) {',
        '      // a high surrogate must be followed by its low surrogate',
        '      val lo = nextChar()',
        '      if (!Character.isLowSurrogate(lo))',
        '        throw new JsonParseException(s"expected low surrogate after \\\\u${hexOf(hi)}", pos)',
        '      Character.toCodePoint(hi.toChar, lo)',
        '    } else hi',
        '  }',
        '',
        '  private def readHex4(): Int = {',
        '    var v = 0',
        '    var k = 0',
        '    while (k < 4) {',
        '      v = (v << 4) | hexValue(nextChar())',
        '      k += 1',
        '    }',
        '    v',
        '  }',
        '']
    lines += block
    lines += filler_methods(['array', 'object', 'field', 'skip', 'peek'], 334 - len(lines) - 3, 'r')
    lines += ['  private def hexOf(v: Int): String = f"$v%04X"', '}', '']
    return lines

WL = build_writer()
RL = build_reader()
assert WL[166].strip() == 'val cp = s.codePointAt(i)', WL[166]
assert RL[211].strip() == 'val lo = nextChar()', RL[211]
assert RL[213].strip().startswith('throw new JsonParseException(s"expected low surrogate'), RL[213]

def view(path, lines, start):
    # SWE-agent window of 100 lines, centred-ish like `open file N`
    total = len(lines)
    s = max(0, start)
    e = min(total, s + 100)
    out = ['[File: %s/%s (%d lines total)]' % (ROOT, path, total)]
    if s > 0:
        out.append('(%d more lines above)' % s)
    for i in range(s, e):
        out.append('%d:%s' % (i + 1, lines[i]))
    if e < total:
        out.append('(%d more lines below)' % (total - e))
    return '\n'.join(out)

# ----------------- noise -----------------
def sbt_boot(with_downloads):
    out = ['[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 17.0.12)',
           '[info] loading settings for project tessera-json-build from plugins.sbt ...',
           '[info] loading project definition from /tessera-json/project']
    if with_downloads:
        libs = [('org.scala-lang', 'scala-library', '2.13.14'), ('org.scala-lang', 'scala-compiler', '2.13.14'), ('org.scala-lang', 'scala-reflect', '2.13.14'),
                ('org.scalameta', 'munit_2.13', '1.0.2'), ('org.scalameta', 'munit-scalacheck_2.13', '1.0.0'), ('org.scalacheck', 'scalacheck_2.13', '1.18.1'),
                ('org.scala-sbt', 'test-interface', '1.0'), ('com.typesafe', 'mima-core_2.12', '1.1.4'), ('com.typesafe', 'sbt-mima-plugin', '1.1.4'),
                ('org.scalameta', 'scalafmt-dynamic_2.12', '3.8.3'), ('org.openjdk.jmh', 'jmh-core', '1.37'), ('pl.project13.scala', 'sbt-jmh', '0.4.7'),
                ('org.scala-js', 'sbt-scalajs', '1.16.0'), ('org.portable-scala', 'sbt-scalajs-crossproject', '1.3.2'), ('org.scala-native', 'sbt-scala-native', '0.5.5'),
                ('com.github.sbt', 'sbt-ci-release', '1.6.1'), ('org.typelevel', 'jawn-parser_2.13', '1.6.0'), ('org.scala-sbt', 'zinc_2.12', '1.10.2'),
                ('org.scala-sbt', 'io_2.12', '1.10.0'), ('org.scala-sbt', 'util-logging_2.12', '1.10.2'), ('com.lihaoyi', 'sourcecode_2.13', '0.4.2'),
                ('org.ow2.asm', 'asm', '9.7'), ('org.ow2.asm', 'asm-tree', '9.7'), ('org.jline', 'jline', '3.26.3'), ('net.java.dev.jna', 'jna', '5.14.0'),
                ('com.google.protobuf', 'protobuf-java', '3.25.5'), ('org.scala-lang.modules', 'scala-xml_2.13', '2.3.0'),
                ('org.scala-lang.modules', 'scala-collection-compat_2.13', '2.12.0'), ('org.scala-lang.modules', 'scala-parser-combinators_2.13', '2.4.0'),
                ('com.eed3si9n', 'shaded-scalajson_2.12', '1.0.0-M4'), ('org.scala-sbt', 'librarymanagement-core_2.12', '1.10.1'),
                ('io.get-coursier', 'lm-coursier-shaded_2.12', '2.1.4'), ('org.apache.logging.log4j', 'log4j-core', '2.17.1'), ('org.slf4j', 'slf4j-api', '2.0.13')]
        for g, a, v in libs:
            for ext in ['pom', 'jar']:
                out.append('https://repo1.maven.org/maven2/%s/%s/%s/%s-%s.%s' % (g.replace('.', '/'), a, v, a, v, ext))
                out.append('  100.0%% [##########] %d.%d KiB (%d.%d KiB / s)' % (R.randint(1, 900), R.randint(0, 9), R.randint(100, 4000), R.randint(0, 9)))
        out.append('[info] loading settings for project root from build.sbt ...')
        out.append('[info] resolving key references (14212 settings) ...')
    out += ['[info] set current project to tessera-json (in build file:/tessera-json/)']
    return out

def compile_lines(nfiles, warn=True):
    out = ['[info] compiling %d Scala sources to /tessera-json/core/.jvm/target/scala-2.13/classes ...' % nfiles]
    if warn:
        for k in range(14):
            f = R.choice(['Codec.scala', 'Encoder.scala', 'Decoder.scala', 'derive/Macros.scala', 'Json.scala', 'Cursor.scala'])
            out.append('[warn] /tessera-json/core/src/main/scala/tessera/json/%s:%d:%d: %s' % (f, R.randint(10, 300), R.randint(3, 40),
                       R.choice(['method right in class Either is deprecated (since 2.13.0): Either is now right-biased, use methods directly on Either',
                                 'a type was inferred to be `Any`; this may indicate a programming error.',
                                 'Implicit definition should have explicit type (inferred tessera.json.Encoder[A])',
                                 'match may not be exhaustive.\n[warn] It would fail on the following input: Nil'])))
        out.append('[warn] 14 warnings found')
    out.append('[info] compiling 41 Scala sources to /tessera-json/core/.jvm/target/scala-2.13/test-classes ...')
    out.append('[info] done compiling')
    return out

SUITES = ['NumberCodecSuite', 'ObjectCodecSuite', 'ArrayCodecSuite', 'OptionCodecSuite', 'DerivationSuite', 'CursorSuite', 'ParserSuite',
          'BigDecimalCodecSuite', 'EitherCodecSuite', 'MapCodecSuite', 'InstantCodecSuite', 'UUIDCodecSuite', 'ErrorMessageSuite', 'PrettyPrinterSuite']
def munit_run(string_block, n=380):
    out = []
    for sname in SUITES:
        out.append('tessera.json.%s:' % sname)
        for _ in range(n // len(SUITES)):
            out.append('  + %s %s %.3fs' % (R.choice(['encodes', 'decodes', 'property: roundTrip', 'rejects', 'accumulates errors for', 'preserves order of']),
                                               R.choice(['nested objects', 'empty arrays', 'Long.MaxValue', 'NaN as null', 'missing fields', 'defaults', 'sealed traits',
                                                         'negative zero', 'exponent notation', 'unicode keys', 'deep nesting (512)', 'trailing commas']), R.uniform(0.001, 0.4)))
    out += string_block
    return out

STRING_PASS_PREFIX = ['tessera.json.StringCodecProps:', '  + property: roundTrip[String] 0.412s', '  + escapes control characters 0.004s',
                      '  + escapes quote and backslash 0.001s', '  + property: roundTrip[Char] 0.201s']

def fail_block_writer():
    return STRING_PASS_PREFIX + [
        '==> X tessera.json.StringCodecProps.property: roundTrip[String] with escapeUnicode  0.087s munit.FailException: /tessera-json/core/src/test/scala/tessera/json/StringCodecProps.scala:38',
        '37:  property("roundTrip[String] with escapeUnicode") {',
        '38:    forAll(genJsonString) { (s: String) =>',
        '39:      val json = Json.write(s, WriterConfig.default.copy(escapeUnicode = true))',
        '',
        'Failing seed: 8w1QbC3uX4kV0dG7oY2sJ5mN9rT6hE0aZ3fL1pK8yW4=',
        'You can reproduce this failure by adding the following override to your suite:',
        '',
        '  override def scalaCheckInitialSeed = "8w1QbC3uX4kV0dG7oY2sJ5mN9rT6hE0aZ3fL1pK8yW4="',
        '',
        'Falsified after 3 passed tests.',
        '> ARG_0: "\U0001F600"',
        '> ARG_0_ORIGINAL: "q\U00010437x\U0001F600"',
        '> Labels of failing property:',
        'Expected "\U0001F600" but got "\u1F60" + "0"',
        '    at munit.FunSuite.assertEquals(FunSuite.scala:11)',
        '    at tessera.json.StringCodecProps.$anonfun$new$7(StringCodecProps.scala:41)',
        '  + property: roundTrip[String] with escapeUnicode for BMP only 0.133s',
    ]

def fail_block_reader():
    return STRING_PASS_PREFIX + [
        '==> X tessera.json.StringCodecProps.property: roundTrip[String] with escapeUnicode  0.091s munit.FailException: /tessera-json/core/src/test/scala/tessera/json/StringCodecProps.scala:38',
        '37:  property("roundTrip[String] with escapeUnicode") {',
        '38:    forAll(genJsonString) { (s: String) =>',
        '39:      val json = Json.write(s, WriterConfig.default.copy(escapeUnicode = true))',
        '',
        'Failing seed: 8w1QbC3uX4kV0dG7oY2sJ5mN9rT6hE0aZ3fL1pK8yW4=',
        'You can reproduce this failure by adding the following override to your suite:',
        '',
        '  override def scalaCheckInitialSeed = "8w1QbC3uX4kV0dG7oY2sJ5mN9rT6hE0aZ3fL1pK8yW4="',
        '',
        'Falsified after 3 passed tests.',
        '> ARG_0: "\U0001F600"',
        '> ARG_0_ORIGINAL: "q\U00010437x\U0001F600"',
        '> Exception raised on property evaluation.',
        '> Exception: tessera.json.JsonParseException: expected low surrogate after \\uD83D at offset 9',
        '    at tessera.json.JsonReader.parseUnicodeEscape(JsonReader.scala:214)',
        '    at tessera.json.JsonReader.readStringBody(JsonReader.scala:199)',
        '    at tessera.json.JsonReader.readString(JsonReader.scala:170)',
        '    at tessera.json.Decoder$$anon$4.decode(Decoder.scala:88)',
        '    at tessera.json.Json$.read(Json.scala:41)',
        '    at tessera.json.StringCodecProps.$anonfun$new$7(StringCodecProps.scala:40)',
        '  + property: roundTrip[String] with escapeUnicode for BMP only 0.129s',
    ]

def test_tail(nfail, total):
    return ['[error] Failed: Total %d, Failed %d, Errors 0, Passed %d' % (total, nfail, total - nfail),
            '[error] Failed tests:', '[error] \ttessera.json.StringCodecProps',
            '[error] (core / Test / test) sbt.TestsFailedException: Tests unsuccessful',
            '[error] Total time: %d s, completed Dec 3, 2026, 10:%02d:%02d AM' % (R.randint(20, 90), R.randint(0, 59), R.randint(0, 59))]

# ----------------- trajectory -----------------
SYSTEM = """SETTING: You are an autonomous programmer, and you're working directly in the command line with a special interface.

The special interface consists of a file editor that shows you 100 lines of a file at a time.
In addition to typical bash commands, you can also use the following commands to help you navigate and edit files.

COMMANDS:
open:
  docstring: opens the file at the given path in the editor. If line_number is provided, the window will be move to include that line
  signature: open <path> [<line_number>]
  arguments:
    - path (string) [required]: the path to the file to open
    - line_number (integer) [optional]: the line number to move the window to (if not provided, the window will start at the top of the file)

goto:
  docstring: moves the window to show <line_number>
  signature: goto <line_number>
  arguments:
    - line_number (integer) [required]: the line number to move the window to

scroll_down:
  docstring: moves the window down 100 lines
  signature: scroll_down

scroll_up:
  docstring: moves the window up 100 lines
  signature: scroll_up

create:
  docstring: creates and opens a new file with the given name
  signature: create <filename>
  arguments:
    - filename (string) [required]: the name of the file to create

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
  docstring: replaces lines <start_line> through <end_line> (inclusive) with the given text in the open file. The replacement text is terminated by a line with only end_of_edit on it. All of the <replacement text> will be entered, so make sure your indentation is formatted properly.
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

You should only include a *SINGLE* command in the command section and then wait for a response from the shell before continuing with more discussion and commands.
You're free to use any other bash commands you want (e.g. find, grep, cat, ls, cd) in addition to the special commands listed above.
However, the environment does NOT support interactive session commands (e.g. python, vim, sbt shell), so please do not invoke them. Run sbt in batch mode only."""

ISSUE = """Round-trip of strings with supplementary characters fails when `escapeUnicode = true` (#214)

**Describe the bug**
With `WriterConfig(escapeUnicode = true)` every non-ASCII character is written as a `\\uXXXX` escape. For characters outside the BMP (emoji, CJK Extension B, ...) the writer emits a single five-digit escape instead of a UTF-16 surrogate pair, so the output is not valid JSON for those characters and reading it back gives garbage.

**To Reproduce**
```scala
import tessera.json._

val cfg  = WriterConfig.default.copy(escapeUnicode = true)
val s    = "mood: \\uD83D\\uDE00"          // U+1F600
val json = Json.write(s, cfg)
println(json)                   // "mood: \\u1f600"   <- expected "mood: \\ud83d\\ude00"
println(Json.read[String](json)) // Right(mood: \u1f60 0)
```

**Expected behavior**
`Json.read[String](Json.write(s, cfg)) == Right(s)` for every `String` `s`, with `escapeUnicode` on or off. RFC 8259 section 7: characters outside the BMP are escaped as a twelve-character sequence encoding the UTF-16 surrogate pair.

**Environment**
tessera-json 0.9.2, Scala 2.13.14, JDK 17

---
**Comment from @lkowalczyk (maintainer):**
> Thanks! A couple of constraints for whoever picks this up:
> - Please keep this binary compatible with 0.9.x — `sbt mimaReportBinaryIssues` runs in CI and `JsonWriter`/`JsonReader` are public API.
> - No per-character allocation in `writeString`, it is the hot path (see `benchmarks/StringWriteBench`), so no `String.format`/`f"..."` per char.
>
> Hint: I suspect that once the writer emits proper surrogate pairs, the reader will choke next: `JsonReader.parseUnicodeEscape` only accepts a *raw* low surrogate after an escaped high surrogate. It has to accept a second `\\uXXXX` escape there too. The property `roundTrip[String] with escapeUnicode` in `StringCodecProps` covers both directions once it passes."""

INSTR = """

INSTRUCTIONS:
Now, you're going to solve this issue on your own. Your terminal session has started and you're in the repository's root directory. You can use any bash commands or the special interface to help you. Edit all the files you need to and run any checks or tests that you want.
Remember, YOU CAN ONLY ENTER ONE COMMAND AT A TIME. You should always wait for feedback after every command.
When you're satisfied with all of the changes you've made, you can submit your changes to the code base by simply running the submit command.
Note however that you cannot use any interactive session commands (e.g. python, vim) in this environment, but you can write scripts and run them. E.g. you can write a scala test and run it with `sbt "core/testOnly ..."`.

NOTE ABOUT THE EDIT COMMAND: Indentation really matters! When editing a file, make sure to insert appropriate indentation before each line!

IMPORTANT TIPS:
1. Always start by trying to replicate the bug that the issues discusses.
2. If you run a command and it doesn't work, try running a different command.
3. Always make sure to look at the currently open file and the current working directory.
4. When editing files, it is easy to accidentally specify a wrong line number or to write code with incorrect indentation. Always check the code after you issue an edit.

(Open file: n/a)
(Current directory: /tessera-json)
bash-$"""

traj = []
history = [{"role": "system", "content": SYSTEM, "agent": "primary"},
           {"role": "user", "content": "We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n" + ISSUE + INSTR, "agent": "primary"}]
open_file = ['n/a']

def step(thought, action, observation, new_open=None):
    if new_open is not None:
        open_file[0] = new_open if new_open.startswith('/') else ROOT + '/' + new_open
    response = 'DISCUSSION\n' + thought + '\n\n```\n' + action.rstrip('\n') + '\n```'
    state = json.dumps({"open_file": open_file[0], "working_dir": ROOT}) + '\n'
    traj.append({"action": action if action.endswith('\n') else action + '\n', "observation": observation, "response": response,
                 "state": state, "thought": thought})
    history.append({"role": "assistant", "content": response, "thought": thought, "action": action if action.endswith('\n') else action + '\n', "agent": "primary"})
    history.append({"role": "user", "content": observation + '\n(Open file: %s)\n(Current directory: %s)\nbash-$' % (open_file[0], ROOT), "agent": "primary"})

step("Let me start by looking at the repository layout to find the JSON writer and the tests the issue mentions.", 'ls -F',
     'README.md\nbenchmarks/\nbuild.sbt\ncore/\ndocs/\nproject/\nscalafmt.conf\nversion.sbt')
step("It is an sbt build. Let me look at build.sbt to see the modules, the MiMa setup and the test framework.", 'cat build.sbt',
     """ThisBuild / scalaVersion       := "2.13.14"
ThisBuild / crossScalaVersions := Seq("2.13.14", "3.3.4")
ThisBuild / organization       := "io.tessera"
ThisBuild / versionScheme      := Some("early-semver")

lazy val root = project.in(file("."))
  .aggregate(core.jvm, core.js, benchmarks)
  .settings(publish / skip := true)

lazy val core = crossProject(JVMPlatform, JSPlatform)
  .in(file("core"))
  .settings(
    name := "tessera-json",
    libraryDependencies ++= Seq(
      "org.scalameta"  %%% "munit"            % "1.0.2"  % Test,
      "org.scalameta"  %%% "munit-scalacheck" % "1.0.0"  % Test,
      "org.scalacheck" %%% "scalacheck"       % "1.18.1" % Test
    ),
    mimaPreviousArtifacts := Set("io.tessera" %% "tessera-json" % "0.9.0"),
    scalacOptions ++= Seq("-Xsource:3", "-Wunused:imports", "-Xlint:-byname-implicit")
  )

lazy val benchmarks = project.in(file("benchmarks"))
  .dependsOn(core.jvm)
  .enablePlugins(JmhPlugin)
  .settings(publish / skip := true)""")
step("Let me skim the README for the documented escaping behaviour.", 'head -n 45 README.md',
     '# tessera-json\n\nSmall, allocation-conscious JSON codecs for Scala 2.13 and 3 (JVM and Scala.js).\n\n```scala\nlibraryDependencies += "io.tessera" %% "tessera-json" % "0.9.2"\n```\n\n## Quick start\n\n```scala\nimport tessera.json._\n\nfinal case class Item(name: String, qty: Int)\nimplicit val itemCodec: Codec[Item] = derive.codec[Item]\n\nJson.write(Item("caf\\u00e9", 2))                                        // {"name":"caf\\u00e9","qty":2}\nJson.write(Item("caf\\u00e9", 2), WriterConfig(escapeUnicode = true))   // {"name":"caf\\\\u00e9","qty":2}\n```\n\n## Compatibility\n\nFrom 0.9.0 on, the public API of `tessera.json` is binary compatible within a minor series.\nThis is checked with sbt-mima-plugin on every PR.\n\n## Benchmarks\n\n```\nsbt "benchmarks/Jmh/run -i 5 -wi 3 -f1 StringWriteBench"\n```')
step("Let me list the test sources so I know what suites exist.", 'ls core/src/test/scala/tessera/json/',
     'ArrayCodecSuite.scala\nBigDecimalCodecSuite.scala\nCharCodecSuite.scala\nCursorSuite.scala\nDerivationSuite.scala\nEitherCodecSuite.scala\nErrorMessageSuite.scala\nGoldenFilesSuite.scala\nInstantCodecSuite.scala\nMapCodecSuite.scala\nNumberCodecSuite.scala\nObjectCodecSuite.scala\nOptionCodecSuite.scala\nParserSuite.scala\nPrettyPrinterSuite.scala\nStringCodecProps.scala\nUUIDCodecSuite.scala\ngolden/')
step("Let me check the version and whether the working tree is clean.", 'cat version.sbt && git status --short && git log --oneline -3',
     'ThisBuild / version := "0.9.3-SNAPSHOT"\n4e8a1d2 (HEAD -> main) docs: escapeUnicode option table\n7c1d0e4 writer: iterate by code point (perf, #198)\nb13f6a0 decoder: accumulate errors in derived codecs')
step("Let me check which JDK and sbt are available in this environment.", 'java -version 2>&1 && sbt --script-version',
     'openjdk version "17.0.12" 2024-07-16\nOpenJDK Runtime Environment Temurin-17.0.12+7 (build 17.0.12+7)\nOpenJDK 64-Bit Server VM Temurin-17.0.12+7 (build 17.0.12+7, mixed mode, sharing)\n1.10.2')
step("Let me see the docs table on escaping, since the last commit touched it.", 'grep -n -A8 "escapeUnicode" docs/encoding.md | head -n 20',
     '14:| `escapeUnicode` | `false` | escape every char above 0x7E as \\\\uXXXX |\n15-| `indent`        | `0`     | spaces per nesting level, 0 = compact |\n16-| `sortKeys`      | `false` | write object keys in lexicographic order |\n17-| `dropNullValues`| `false` | omit fields whose value is `null` |\n18-\n19-Characters outside the Basic Multilingual Plane are written as a UTF-16\n20-surrogate pair (`\\\\ud83d\\\\ude00`), as required by RFC 8259.')
step("Let me find the writer source file.", 'find_file "JsonWriter.scala"',
     'Found 1 matches for "JsonWriter.scala" in /tessera-json:\n/tessera-json/core/src/main/scala/tessera/json/JsonWriter.scala')
step("Let me open JsonWriter.scala and look at how strings are written.", 'open core/src/main/scala/tessera/json/JsonWriter.scala', view(W, WL, 0), W)
step("Let me scroll down to see more of the writer.", 'scroll_down', view(W, WL, 100))
step("Before going further, let me see the other files in the package so I know where Encoder and WriterConfig live.", 'ls core/src/main/scala/tessera/json/',
     'Codec.scala\nCursor.scala\nDecoder.scala\nEncoder.scala\nJson.scala\nJsonParseException.scala\nJsonReader.scala\nJsonWriter.scala\nReaderConfig.scala\nWriterConfig.scala\nderive/')
step("Let me look at WriterConfig.", 'cat core/src/main/scala/tessera/json/WriterConfig.scala', """package tessera.json

/** Options for [[JsonWriter]].
  *
  * @param escapeUnicode escape every character above 0x7E as a `\\uXXXX` sequence,
  *                      producing pure-ASCII output
  */
final case class WriterConfig(
    escapeUnicode: Boolean = false,
    indent: Int = 0,
    sortKeys: Boolean = false,
    dropNullValues: Boolean = false
)

object WriterConfig {
  val default: WriterConfig = WriterConfig()
}""")
step("Let me check recent history of the writer, in case this regressed.", 'git log --oneline -12 -- core/src/main/scala/tessera/json/JsonWriter.scala',
     '7c1d0e4 writer: iterate by code point (perf, #198)\n2f9a3b1 writer: escapeUnicode option (#171)\n91e7d55 writer: inline hex digits table\n0ab4c3e writer: sortKeys\n5d2e8f0 initial import of writer from tessera-core')
step("Commit 7c1d0e4 switched writeString to iterate by code point. Let me see what it changed.", 'git show 7c1d0e4 --stat',
     'commit 7c1d0e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d\nAuthor: Priya Natarajan <priya@tessera.io>\nDate:   Mon Sep 15 11:20:44 2026 +0200\n\n    writer: iterate by code point (perf, #198)\n\n    Avoids re-checking surrogates twice per char in the non-escaping path.\n\n core/src/main/scala/tessera/json/JsonWriter.scala | 9 ++++-----\n benchmarks/src/main/scala/tessera/bench/StringWriteBench.scala | 12 ++++++++++++\n 2 files changed, 16 insertions(+), 5 deletions(-)')
step("Let me look at the benchmark mentioned by the maintainer, to understand the hot path constraints.", 'cat benchmarks/src/main/scala/tessera/bench/StringWriteBench.scala', """package tessera.bench

import java.util.concurrent.TimeUnit
import org.openjdk.jmh.annotations._
import tessera.json._

@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.Throughput))
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
class StringWriteBench {
  @Param(Array("false", "true")) var escapeUnicode: Boolean = _
  @Param(Array("ascii", "latin1", "emoji")) var corpus: String = _

  var input: String = _
  var cfg: WriterConfig = _

  @Setup def setup(): Unit = {
    input = Corpora(corpus)
    cfg = WriterConfig.default.copy(escapeUnicode = escapeUnicode)
  }

  @Benchmark def writeString(): String = Json.write(input, cfg)
}""")
step("The string writing code is further down. Let me search for writeString.", 'search_file "writeString"',
     'Found 2 matches for "writeString" in /tessera-json/core/src/main/scala/tessera/json/JsonWriter.scala:\nLine 162:  def writeString(s: String): Unit = {\nLine 289:  def writeFieldName(name: String): Unit = { writeString(name); out.append(\':\') }\nEnd of matches for "writeString" in /tessera-json/core/src/main/scala/tessera/json/JsonWriter.scala')
step("Let me go to line 132 to see escapeChar, writeUnicodeEscape and writeString together.", 'goto 132', view(W, WL, 130))
step("""`writeString` iterates by code point (`val cp = s.codePointAt(i)` on line 167) and hands the full code point to `escapeChar`. For U+1F600 `escapeUnicode` is on and `cp > 0x7e`, so `writeUnicodeEscape(0x1F600)` writes `\\u` followed by `writeHex`, which writes at least four hex digits, here five: `\\u1f600`. That matches the issue. Before changing anything, let me reproduce with the property test the maintainer mentioned.""",
     'find_file "StringCodecProps.scala"', 'Found 1 matches for "StringCodecProps.scala" in /tessera-json:\n/tessera-json/core/src/test/scala/tessera/json/StringCodecProps.scala')
PROPS = """package tessera.json

import munit.ScalaCheckSuite
import org.scalacheck.{Arbitrary, Gen}
import org.scalacheck.Prop.forAll

class StringCodecProps extends ScalaCheckSuite {

  // Strings mixing ASCII, BMP and supplementary code points.
  val genCodePoint: Gen[Int] = Gen.frequency(
    5 -> Gen.choose(0x20, 0x7e),
    2 -> Gen.choose(0xa0, 0xd7ff),
    1 -> Gen.choose(0xe000, 0xfffd),
    2 -> Gen.choose(0x10000, 0x10ffff)
  )
  val genJsonString: Gen[String] =
    Gen.listOf(genCodePoint).map(cps => new String(cps.toArray, 0, cps.length))

  property("roundTrip[String]") {
    forAll(genJsonString) { (s: String) =>
      assertEquals(Json.read[String](Json.write(s)), Right(s))
    }
  }

  test("escapes control characters") {
    assertEquals(Json.write("a\\u0001b"), "\\"a\\\\u0001b\\"")
  }

  test("escapes quote and backslash") {
    assertEquals(Json.write("\\"\\\\"), "\\"\\\\\\"\\\\\\\\\\"")
  }

  property("roundTrip[Char]") {
    forAll(Gen.choose(Char.MinValue, Char.MaxValue)) { (c: Char) =>
      assertEquals(Json.read[Char](Json.write(c)), Right(c))
    }
  }

  property("roundTrip[String] with escapeUnicode") {
    forAll(genJsonString) { (s: String) =>
      val json = Json.write(s, WriterConfig.default.copy(escapeUnicode = true))
      assert(json.forall(_ < 0x80), s"non-ASCII output: $json")
      assertEquals(Json.read[String](json), Right(s))
    }
  }

  property("roundTrip[String] with escapeUnicode for BMP only") {
    forAll(genJsonString.map(_.filter(c => !Character.isSurrogate(c)))) { (s: String) =>
      val json = Json.write(s, WriterConfig.default.copy(escapeUnicode = true))
      assertEquals(Json.read[String](json), Right(s))
    }
  }
}"""
step("Let me also check the project plugins, to know how MiMa is wired.", 'cat project/plugins.sbt',
     'addSbtPlugin("com.typesafe"          % "sbt-mima-plugin"          % "1.1.4")\naddSbtPlugin("org.scala-js"          % "sbt-scalajs"              % "1.16.0")\naddSbtPlugin("org.portable-scala"    % "sbt-scalajs-crossproject" % "1.3.2")\naddSbtPlugin("pl.project13.scala"    % "sbt-jmh"                  % "0.4.7")\naddSbtPlugin("org.scalameta"         % "sbt-scalafmt"             % "2.5.2")\naddSbtPlugin("com.github.sbt"        % "sbt-ci-release"           % "1.6.1")')
step("Let me look at the property suite.", 'cat core/src/test/scala/tessera/json/StringCodecProps.scala', PROPS)
run1 = sbt_boot(True) + compile_lines(38) + munit_run(fail_block_writer()) + test_tail(1, 402)
step("The property `roundTrip[String] with escapeUnicode` already exists and should fail right now. Let me run the core JVM tests (batch mode).",
     'sbt -batch "coreJVM/test" 2>&1 | tail -n 400', '\n'.join(run1[-400:]))
step("""Confirmed: `tessera.json.StringCodecProps.property: roundTrip[String] with escapeUnicode` fails with the shrunk argument U+1F600, and the output contains the 5-digit escape, read back as `\\u1F60` + `0`. Now let me check who else calls `escapeChar`, because it takes an `Int` and is public.""",
     'grep -rn "escapeChar\\|escapeUnicode" --include=*.scala . | head -n 400',
     '\n'.join(['./core/src/main/scala/tessera/json/JsonWriter.scala:133:  def escapeChar(c: Int): Unit =',
                './core/src/main/scala/tessera/json/JsonWriter.scala:137:    else if (config.escapeUnicode && c > 0x7e) writeUnicodeEscape(c)',
                './core/src/main/scala/tessera/json/Encoder.scala:57:    def encode(c: Char, w: JsonWriter): Unit = { w.raw(\'"\'); w.escapeChar(c.toInt); w.raw(\'"\') }',
                './core/src/main/scala/tessera/json/WriterConfig.scala:9:    escapeUnicode: Boolean = false,'] +
               ['./%s:%d:%s' % (R.choice(['docs/encoding.md', 'benchmarks/src/main/scala/tessera/bench/StringWriteBench.scala', 'core/src/test/scala/tessera/json/WriterConfigSuite.scala',
                                         'core/src/test/scala/tessera/json/golden/GoldenFiles.scala', 'core/src/test/resources/golden/escaped.json']), R.randint(1, 400),
                                R.choice(['  val cfg = WriterConfig.default.copy(escapeUnicode = true)', '  @Param(Array("false", "true")) var escapeUnicode: Boolean = _',
                                          '    "escapeUnicode": true,', '| `escapeUnicode` | `false` | escape every char above 0x7E as \\uXXXX |',
                                          '    assertEquals(render(v, escapeUnicode = true), expected)'])) for _ in range(260)]))
step("Let me see the Char encoder that calls escapeChar.", 'open core/src/main/scala/tessera/json/Encoder.scala 57',
     '[File: /tessera-json/core/src/main/scala/tessera/json/Encoder.scala (164 lines total)]\n(6 more lines above)\n' + '\n'.join('%d:%s' % (i, l) for i, l in zip(range(7, 107), (['trait Encoder[A] { self =>', '  def encode(a: A, w: JsonWriter): Unit', '', '  final def contramap[B](f: B => A): Encoder[B] = new Encoder[B] {', '    def encode(b: B, w: JsonWriter): Unit = self.encode(f(b), w)', '  }', '}', '', 'object Encoder extends LowPriorityEncoders {', '  @inline def apply[A](implicit e: Encoder[A]): Encoder[A] = e', ''] + sum([['  implicit val %sEncoder: Encoder[%s] = new Encoder[%s] {' % (n.lower(), n, n), '    def encode(v: %s, w: JsonWriter): Unit = w.write%s(v)' % (n, n), '  }', ''] for n in ['Int', 'Long', 'Short', 'Byte', 'Float', 'Double', 'Boolean', 'BigInt', 'BigDecimal', 'Unit']], []) + ['  implicit val charEncoder: Encoder[Char] = new Encoder[Char] {', '    def encode(c: Char, w: JsonWriter): Unit = { w.raw(\'"\'); w.escapeChar(c.toInt); w.raw(\'"\') }', '  }', '', '  implicit val stringEncoder: Encoder[String] = new Encoder[String] {', '    def encode(s: String, w: JsonWriter): Unit = w.writeString(s)', '  }', ''] + ['  // collection encoders'] + ['  implicit def seqEncoder%d[A: Encoder]: Encoder[Seq[A]] = ???' % k for k in range(20)]))) + '\n(58 more lines below)', 'core/src/main/scala/tessera/json/Encoder.scala')
step("Let me look for any existing surrogate handling elsewhere in the code base.", 'search_dir "Surrogate" core/src',
     'Found 9 matches for "Surrogate" in /tessera-json/core/src:\n/tessera-json/core/src/main/scala/tessera/json/JsonReader.scala (3 matches)\n/tessera-json/core/src/main/scala/tessera/json/Cursor.scala (1 matches)\n/tessera-json/core/src/test/scala/tessera/json/ParserSuite.scala (5 matches)\nEnd of matches for "Surrogate" in /tessera-json/core/src')
step("ParserSuite has surrogate tests. Let me check which inputs they use.", 'grep -n -i "surrogate" core/src/test/scala/tessera/json/ParserSuite.scala',
     '88:  test("reads raw surrogate pair") {\n89:    assertEquals(Json.read[String]("\\"\\uD83D\\uDE00\\"".replace("\\\\u", "\\u")), Right("\\uD83D\\uDE00"))\n97:  test("rejects lone high surrogate") {\n98:    assert(Json.read[String]("\\"\\\\ud83d x\\"").isLeft)\n104:  // TODO: escaped surrogate pairs (#214)')
step("There is a TODO for escaped surrogate pairs referencing this very issue (#214). Let me look at the golden test file for escaped output.", 'cat core/src/test/resources/golden/escaped.json',
     '{\n  "config": {"escapeUnicode": true},\n  "cases": [\n    {"in": "caf\\u00e9", "out": "\\"caf\\\\u00e9\\""},\n    {"in": "\\u00bfqu\\u00e9?", "out": "\\"\\\\u00bfqu\\\\u00e9?\\""},\n    {"in": "\\u65e5\\u672c", "out": "\\"\\\\u65e5\\\\u672c\\""},\n    {"in": "tab\\tend", "out": "\\"tab\\\\tend\\""}\n  ]\n}')
step("""`escapeChar(c: Int)` is used by `Encoder[Char]` with a single UTF-16 unit, and by `writeString` with a full code point. Cleanest design looks like: make `escapeChar` take a `Char` (a UTF-16 unit, which is what JSON escapes are made of), and have `writeString` iterate over chars instead of code points. Then surrogates are escaped one by one and we get `\\ud83d\\ude00` naturally. Let me edit `escapeChar` first (lines 132-139).""",
     'edit 132:139\n  /** Escapes a single UTF-16 code unit `c` (used by Encoder[Char] and writeString). */\n  def escapeChar(c: Char): Unit =\n    if (c == \'"\') out.append("\\\\\\"")\n    else if (c == \'\\\\\') out.append("\\\\\\\\")\n    else if (c < 0x20) writeControl(c)\n    else if (config.escapeUnicode && c > 0x7e) writeUnicodeEscape(c)\n    else out.append(c)\n\nend_of_edit',
     'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n' + view(W, WL[:131] + ['  /** Escapes a single UTF-16 code unit `c` (used by Encoder[Char] and writeString). */', '  def escapeChar(c: Char): Unit =', WL[133], WL[134], WL[135], WL[136], '    else out.append(c)', ''] + WL[139:], 130))
step("Let me quickly compile to check the escapeChar change type-checks (writeControl and writeUnicodeEscape take Int, Char widens).", 'sbt -batch "coreJVM/compile" 2>&1 | tail -n 8',
     '[info] set current project to tessera-json (in build file:/tessera-json/)\n[info] compiling 1 Scala source to /tessera-json/core/.jvm/target/scala-2.13/classes ...\n[error] /tessera-json/core/src/main/scala/tessera/json/Encoder.scala:57:67: type mismatch;\n[error]  found   : Int\n[error]  required: Char\n[error]     def encode(c: Char, w: JsonWriter): Unit = { w.raw(\'"\'); w.escapeChar(c.toInt); w.raw(\'"\') }\n[error]                                                                   ^\n[error] one error found\n[error] (coreJVM / Compile / compileIncremental) Compilation failed')
step("Expected: the Char encoder passes an Int. I'll fix that after the writeString edit.", 'goto 162', view(W, WL[:131] + ['  /** Escapes a single UTF-16 code unit `c` (used by Encoder[Char] and writeString). */', '  def escapeChar(c: Char): Unit =', WL[133], WL[134], WL[135], WL[136], '    else out.append(c)', ''] + WL[139:], 150))
step("Now update writeString to iterate over UTF-16 units (lines 162-171).", 'edit 162:171\n  def writeString(s: String): Unit = {\n    out.append(\'"\')\n    var i = 0\n    val len = s.length\n    while (i < len) {\n      escapeChar(s.charAt(i))\n      i += 1\n    }\n    out.append(\'"\')\n  }\nend_of_edit',
     'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n' + view(W, WL[:161] + ['  def writeString(s: String): Unit = {', "    out.append('\"')", '    var i = 0', '    val len = s.length', '    while (i < len) {', '      escapeChar(s.charAt(i))', '      i += 1', '    }', "    out.append('\"')", '  }'] + WL[171:], 150))
step("Encoder[Char] calls `w.escapeChar(c.toInt)`; with the new signature that needs `w.escapeChar(c)`. Let me fix that call site.",
     "sed -i 's/w.escapeChar(c.toInt)/w.escapeChar(c)/' core/src/main/scala/tessera/json/Encoder.scala && grep -n escapeChar core/src/main/scala/tessera/json/Encoder.scala",
     '57:    def encode(c: Char, w: JsonWriter): Unit = { w.raw(\'"\'); w.escapeChar(c); w.raw(\'"\') }')
run2 = sbt_boot(False) + compile_lines(38, warn=False) + munit_run(fail_block_reader()) + test_tail(1, 402)
step("Let me re-run the tests.", 'sbt -batch "coreJVM/test" 2>&1 | tail -n 400', '\n'.join(run2[-400:]))
step("""The writer now emits surrogate pairs; the property moves on to the reader. Before looking at that, the issue says binary compatibility with 0.9.x is checked by `sbt mimaReportBinaryIssues`. I changed a public method signature, so let me check MiMa now.""",
     'sbt -batch "coreJVM/mimaReportBinaryIssues" 2>&1 | tail -n 20',
     '\n'.join(sbt_boot(False) + ['[info] compiling 1 Scala source to /tessera-json/core/.jvm/target/scala-2.13/classes ...',
                                 '[error] tessera-json: Failed binary compatibility check against io.tessera:tessera-json_2.13:0.9.0! Found 1 potential problems (filtered 3)',
                                 '[error]  * method escapeChar(Int)Unit in class tessera.json.JsonWriter does not have a correspondent in current version',
                                 '[error]    filter with: ProblemFilters.exclude[DirectMissingMethodProblem]("tessera.json.JsonWriter.escapeChar")',
                                 '[error] stack trace is suppressed; run last coreJVM / mimaReportBinaryIssues for the full output',
                                 '[error] (coreJVM / mimaReportBinaryIssues) Failed binary compatibility check against io.tessera:tessera-json_2.13:0.9.0! Found 1 potential problems (filtered 3)',
                                 '[error] Total time: 19 s, completed Dec 3, 2026, 10:41:07 AM']))
step("Let me see which MiMa filters already exist before deciding anything.", 'grep -rn "ProblemFilters" build.sbt project/',
     'project/MimaSettings.scala:9:    ProblemFilters.exclude[DirectMissingMethodProblem]("tessera.json.derive.Macros.*"),\nproject/MimaSettings.scala:10:    ProblemFilters.exclude[IncompatibleResultTypeProblem]("tessera.json.Cursor#Impl.*"),\nproject/MimaSettings.scala:11:    ProblemFilters.exclude[MissingClassProblem]("tessera.json.internal.*")')
step("""MiMa rejects it: `method escapeChar(Int)Unit in class tessera.json.JsonWriter does not have a correspondent in current version`. Adding a MiMa filter would just hide a real break for downstream users, which the maintainer explicitly ruled out. I'll revert my changes to JsonWriter.scala and Encoder.scala and take a different approach: keep `escapeChar(c: Int)` as is and split supplementary code points inside `writeString` with `Character.highSurrogate`/`Character.lowSurrogate` (both return a `Char`, no allocation).""",
     'git checkout -- core/src/main/scala/tessera/json/JsonWriter.scala core/src/main/scala/tessera/json/Encoder.scala && git status --short', '')
step("Let me double check the revert restored the original writeString.", 'open core/src/main/scala/tessera/json/JsonWriter.scala 150', view(W, WL, 113), W)
step("""Original code is back. Now the minimal fix inside `writeString` (lines 162-171): when `escapeUnicode` is on and the code point is supplementary, write two `\\uXXXX` escapes for its high and low surrogates; otherwise keep calling `escapeChar(cp)` as before. Note `writeUnicodeEscape` is private, so no API change.""",
     'edit 162:171\n  def writeString(s: String): Unit = {\n    out.append(\'"\')\n    var i = 0\n    val len = s.length\n    while (i < len) {\n      val cp = s.codePointAt(i)\n      if (config.escapeUnicode && cp >= Character.MIN_SUPPLEMENTARY_CODE_POINT) {\n        // RFC 8259 section 7: escape as a UTF-16 surrogate pair\n        writeUnicodeEscape(Character.highSurrogate(cp).toInt)\n        writeUnicodeEscape(Character.lowSurrogate(cp).toInt)\n      } else escapeChar(cp)\n      i += Character.charCount(cp)\n    }\n    out.append(\'"\')\n  }\nend_of_edit',
     'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n' + view(W, WL[:161] + ['  def writeString(s: String): Unit = {', "    out.append('\"')", '    var i = 0', '    val len = s.length', '    while (i < len) {', '      val cp = s.codePointAt(i)',
             '      if (config.escapeUnicode && cp >= Character.MIN_SUPPLEMENTARY_CODE_POINT) {', '        // RFC 8259 section 7: escape as a UTF-16 surrogate pair',
             '        writeUnicodeEscape(Character.highSurrogate(cp).toInt)', '        writeUnicodeEscape(Character.lowSurrogate(cp).toInt)', '      } else escapeChar(cp)',
             '      i += Character.charCount(cp)', '    }', "    out.append('\"')", '  }'] + WL[171:], 150))
step("Now MiMa should be happy. Let me run the binary check first.", 'sbt -batch "coreJVM/mimaReportBinaryIssues" 2>&1 | tail -n 6',
     '[info] set current project to tessera-json (in build file:/tessera-json/)\n[info] compiling 1 Scala source to /tessera-json/core/.jvm/target/scala-2.13/classes ...\n[info] done compiling\n[info] tessera-json: found 0 potential binary incompatibilities while checking against io.tessera:tessera-json_2.13:0.9.0  (filtered 3)\n[success] Total time: 17 s, completed Dec 3, 2026, 10:44:52 AM')
step("Let me view the edited writeString once more to double check indentation and the else branch.", 'goto 160', view(W, WL[:161] + ['  def writeString(s: String): Unit = {', "    out.append('\"')", '    var i = 0', '    val len = s.length', '    while (i < len) {', '      val cp = s.codePointAt(i)',
             '      if (config.escapeUnicode && cp >= Character.MIN_SUPPLEMENTARY_CODE_POINT) {', '        // RFC 8259 section 7: escape as a UTF-16 surrogate pair',
             '        writeUnicodeEscape(Character.highSurrogate(cp).toInt)', '        writeUnicodeEscape(Character.lowSurrogate(cp).toInt)', '      } else escapeChar(cp)',
             '      i += Character.charCount(cp)', '    }', "    out.append('\"')", '  }'] + WL[171:], 159))
step("MiMa passes. Let me write a small scratch test to check the writer output directly for the example from the issue.",
     'create core/src/test/scala/tessera/json/Issue214Scratch.scala', '[File: /tessera-json/core/src/test/scala/tessera/json/Issue214Scratch.scala (1 lines total)]\n1:', 'core/src/test/scala/tessera/json/Issue214Scratch.scala')
SCR = 'package tessera.json\n\nclass Issue214Scratch extends munit.FunSuite {\n  test("writer emits surrogate pair") {\n    val cfg = WriterConfig.default.copy(escapeUnicode = true)\n    assertEquals(Json.write("mood: \\uD83D\\uDE00", cfg), "\\"mood: \\\\ud83d\\\\ude00\\"")\n  }\n}'
step("Add the scratch test.", 'edit 1:1\n' + SCR + '\nend_of_edit',
     'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n[File: /tessera-json/core/src/test/scala/tessera/json/Issue214Scratch.scala (8 lines total)]\n' + '\n'.join('%d:%s' % (i + 1, l) for i, l in enumerate(SCR.split('\n'))))
step("Run only the scratch test.", 'sbt -batch "coreJVM/testOnly tessera.json.Issue214Scratch" 2>&1 | tail -n 8',
     '[info] compiling 1 Scala source to /tessera-json/core/.jvm/target/scala-2.13/test-classes ...\n[info] done compiling\ntessera.json.Issue214Scratch:\n  + writer emits surrogate pair 0.011s\n[info] Passed: Total 1, Failed 0, Errors 0, Passed 1\n[success] Total time: 9 s, completed Dec 3, 2026, 10:46:30 AM')
step("Let me also make sure the escaped-golden test and the Char round trip still pass with the writer change.", 'sbt -batch "coreJVM/testOnly tessera.json.GoldenFilesSuite tessera.json.CharCodecSuite" 2>&1 | tail -n 12',
     '[info] set current project to tessera-json (in build file:/tessera-json/)\ntessera.json.GoldenFilesSuite:\n  + escaped.json 0.021s\n  + pretty.json 0.008s\n  + sorted.json 0.006s\ntessera.json.CharCodecSuite:\n  + roundTrip[Char] ascii 0.002s\n  + roundTrip[Char] lone surrogate 0.001s\n  + escapes U+2028 0.001s\n[info] Passed: Total 6, Failed 0, Errors 0, Passed 6\n[success] Total time: 8 s, completed Dec 3, 2026, 10:47:02 AM')
step("The writer side is fixed. Now the property test; I expect it to fail in the reader as the maintainer's hint predicted.", 'sbt -batch "coreJVM/testOnly tessera.json.StringCodecProps" 2>&1 | tail -n 40',
     '\n'.join(fail_block_reader() + ['[error] Failed: Total 6, Failed 1, Errors 0, Passed 5', '[error] Failed tests:', '[error] \ttessera.json.StringCodecProps',
                                      '[error] (coreJVM / Test / testOnly) sbt.TestsFailedException: Tests unsuccessful', '[error] Total time: 12 s, completed Dec 3, 2026, 10:47:18 AM']))
for k in range(2):
    step("Let me run it once more with the fixed seed to make sure the failure is deterministic and not seed-dependent noise.",
         'sbt -batch "coreJVM/testOnly tessera.json.StringCodecProps -- --scalacheck-initial-seed=8w1QbC3uX4kV0dG7oY2sJ5mN9rT6hE0aZ3fL1pK8yW4=" 2>&1 | tail -n 40',
         '\n'.join(fail_block_reader() + ['[error] Failed: Total 6, Failed 1, Errors 0, Passed 5', '[error] Failed tests:', '[error] \ttessera.json.StringCodecProps',
                                          '[error] (coreJVM / Test / testOnly) sbt.TestsFailedException: Tests unsuccessful', '[error] Total time: 11 s, completed Dec 3, 2026, 10:4%d:02 AM' % (8 + k)]))
step("""Deterministic. The reader throws `tessera.json.JsonParseException: expected low surrogate after \\uD83D at offset 9` from `JsonReader.parseUnicodeEscape(JsonReader.scala:214)`. Let me open the reader there.""",
     'open core/src/main/scala/tessera/json/JsonReader.scala 200', view(RD, RL, 149), RD)
step("""Here is the problem the maintainer described. In `parseUnicodeEscape`, after an escaped high surrogate, line 212 does `val lo = nextChar()` and expects the *raw* low surrogate character. With the writer now emitting `\\ud83d\\ude00`, the next char is `\\`, so line 214 throws. The fix: if the next two chars are `\\` and `u`, consume them and read the low surrogate with `readHex4()`; otherwise keep accepting a raw low surrogate (for input produced with escapeUnicode = false by older writers). I need a peek helper; let me check what the reader has.""",
     'search_file "def peek"', 'Found 3 matches for "def peek" in /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala:\nLine 268:  def peekArray5(): Int = {\nLine 292:  def peekObject8(): Int = {\nLine 316:  def peekArray11(): Int = {\nEnd of matches for "def peek" in /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala')
step("Let me look at readHex4 and hexValue, which I will reuse for the escaped low surrogate.", 'search_file "hexValue"',
     'Found 2 matches for "hexValue" in /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala:\nLine 224:      v = (v << 4) | hexValue(nextChar())\nLine 331:  @inline private def hexValue(c: Char): Int = { val v = HexTable(c & 0x7f); if (v < 0 || c > 0x7f) throw new JsonParseException(s"invalid hex digit \'$c\'", pos - 1); v }\nEnd of matches for "hexValue" in /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala')
step("Let me also see the end of the file for the helper section.", 'goto 300', view(RD, RL, 234))
step("Let me see how nextChar and hexValue are defined.", 'search_file "def nextChar"',
     'Found 1 matches for "def nextChar" in /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala:\nLine 329:  @inline private def nextChar(): Char = { if (pos >= len) throw new JsonParseException("unexpected end of input", pos); val c = buf(pos); pos += 1; c }\nEnd of matches for "def nextChar" in /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala')
step("`nextChar()` throws at end of input, advances pos. Let me check JsonParseException for how offsets are reported.", 'cat core/src/main/scala/tessera/json/JsonParseException.scala',
     'package tessera.json\n\nfinal class JsonParseException(msg: String, val offset: Int)\n    extends RuntimeException(s"$msg at offset $offset") {\n  override def fillInStackTrace(): Throwable = this\n}')
step("Let me check the Decoder call path for String, to be sure nothing else pre-processes escapes.", 'open core/src/main/scala/tessera/json/Decoder.scala 88',
     '[File: /tessera-json/core/src/main/scala/tessera/json/Decoder.scala (231 lines total)]\n(37 more lines above)\n' + '\n'.join('%d:%s' % (38 + k, l) for k, l in enumerate((['  implicit val %sDecoder: Decoder[%s] = new Decoder[%s] {' % (n.lower(), n, n) for n in ['Int', 'Long', 'Short', 'Byte', 'Float', 'Double', 'Boolean', 'BigInt', 'BigDecimal']] * 5)[:50] + ['  implicit val stringDecoder: Decoder[String] = new Decoder[String] {', '    def decode(r: JsonReader): Either[DecodingFailure, String] =', '      try Right(r.readString())', '      catch { case e: JsonParseException => Left(DecodingFailure(e.getMessage, Nil)) }', '  }'] + ['  // ...'] * 45)) + '\n(93 more lines below)', 'core/src/main/scala/tessera/json/Decoder.scala')
step("Decoder[String] simply calls `r.readString()`. Everything happens in JsonReader. Back to the reader.", 'open core/src/main/scala/tessera/json/JsonReader.scala 212', view(RD, RL, 161), RD)
step("Those are token peeks, not char lookahead. `buf` and `pos` are fields, so I can look at `buf(pos)` and `buf(pos + 1)` directly with a bounds check. Let me edit lines 210-214.",
     'edit 210:214\n    if (Character.isHighSurrogate(hi.toChar)) {\n      // a high surrogate must be followed by its low surrogate, raw or escaped\n      val lo =\n        if (pos + 1 < len && buf(pos) == \'\\\\\' && buf(pos + 1) == \'u\') { pos += 2; readHex4().toChar\n        else nextChar()\n      if (!Character.isLowSurrogate(lo))\n        throw new JsonParseException(s"expected low surrogate after \\\\u${hexOf(hi)}", pos)\nend_of_edit',
     'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n' + view(RD, RL[:209] + ['    if (Character.isHighSurrogate(hi.toChar)) {', '      // a high surrogate must be followed by its low surrogate, raw or escaped', '      val lo =',
             "        if (pos + 1 < len && buf(pos) == '\\\\' && buf(pos + 1) == 'u') { pos += 2; readHex4().toChar", '        else nextChar()', '      if (!Character.isLowSurrogate(lo))',
             '        throw new JsonParseException(s"expected low surrogate after \\\\u${hexOf(hi)}", pos)'] + RL[214:], 175))
step("Let me compile and run the property.", 'sbt -batch "coreJVM/testOnly tessera.json.StringCodecProps" 2>&1 | tail -n 30',
     '[info] set current project to tessera-json (in build file:/tessera-json/)\n[info] compiling 1 Scala source to /tessera-json/core/.jvm/target/scala-2.13/classes ...\n[error] /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala:214:9: illegal start of simple expression\n[error]         else nextChar()\n[error]         ^\n[error] /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala:224:3: \'}\' expected but eof found.\n[error]   }\n[error]   ^\n[error] two errors found\n[error] (coreJVM / Compile / compileIncremental) Compilation failed\n[error] Total time: 6 s, completed Dec 3, 2026, 10:51:40 AM')
step("""I left the `{` after the condition unclosed on line 213 (`{ pos += 2; readHex4().toChar` has no `}`). Let me revert this file and redo the edit cleanly.""",
     'git checkout -- core/src/main/scala/tessera/json/JsonReader.scala && git diff --stat',
     ' core/src/main/scala/tessera/json/JsonWriter.scala | 6 +++++-\n 1 file changed, 5 insertions(+), 1 deletion(-)')
step("Check the working tree state after the revert.", 'git status --short', ' M core/src/main/scala/tessera/json/JsonWriter.scala\n?? core/src/test/scala/tessera/json/Issue214Scratch.scala')
step("Before redoing the reader edit, let me confirm the full JVM suite is otherwise green with just the writer fix (only the property should fail).", 'sbt -batch "coreJVM/test" 2>&1 | tail -n 160',
     '\n'.join((sbt_boot(False) + compile_lines(38, warn=False) + munit_run(fail_block_reader(), 150) + test_tail(1, 402))[-160:]))
step("As expected: 401 of 402 pass, only `roundTrip[String] with escapeUnicode` fails, in the reader. Let me check the JS platform compiles too since core is a crossProject.", 'sbt -batch "coreJS/Test/compile" 2>&1 | tail -n 6',
     '[info] set current project to tessera-json (in build file:/tessera-json/)\n[info] compiling 38 Scala sources to /tessera-json/core/.js/target/scala-2.13/classes ...\n[info] compiling 42 Scala sources to /tessera-json/core/.js/target/scala-2.13/test-classes ...\n[info] done compiling\n[success] Total time: 71 s, completed Dec 3, 2026, 10:55:12 AM')
step("""JsonReader is back to the original; only the writer fix remains in the diff (plus the untracked scratch test). Let me view the reader function again before re-editing.""",
     'goto 205', view(RD, RL, 154))
step("""The hint in the issue was right: the remaining work is here. Plan for lines 210-214: after an escaped high surrogate, if `buf(pos) == '\\\\'` and `buf(pos + 1) == 'u'`, advance `pos` by 2 and read the low surrogate with `readHex4().toChar`, otherwise fall back to `nextChar()` for a raw low surrogate; then the existing `isLowSurrogate` check and `Character.toCodePoint(hi.toChar, lo)`. This time with balanced braces. Then run StringCodecProps, ParserSuite, the full suite and mimaReportBinaryIssues, and delete Issue214Scratch.scala before submitting.""",
     'search_file "parseUnicodeEscape"', 'Found 2 matches for "parseUnicodeEscape" in /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala:\nLine 199:          case \'u\' => sb.appendCodePoint(parseUnicodeEscape())\nLine 208:  private def parseUnicodeEscape(): Int = {\nEnd of matches for "parseUnicodeEscape" in /tessera-json/core/src/main/scala/tessera/json/JsonReader.scala')
# history ends here (cost limit)
info = {"exit_status": "exit_cost",
        "submission": "\ndiff --git a/core/src/main/scala/tessera/json/JsonWriter.scala b/core/src/main/scala/tessera/json/JsonWriter.scala\nindex 4b1e0c2..9a7d3f5 100644\n--- a/core/src/main/scala/tessera/json/JsonWriter.scala\n+++ b/core/src/main/scala/tessera/json/JsonWriter.scala\n@@ -165,7 +165,11 @@ final class JsonWriter(out: java.lang.StringBuilder, val config: WriterConfig) {\n     val len = s.length\n     while (i < len) {\n       val cp = s.codePointAt(i)\n-      escapeChar(cp)\n+      if (config.escapeUnicode && cp >= Character.MIN_SUPPLEMENTARY_CODE_POINT) {\n+        // RFC 8259 section 7: escape as a UTF-16 surrogate pair\n+        writeUnicodeEscape(Character.highSurrogate(cp).toInt)\n+        writeUnicodeEscape(Character.lowSurrogate(cp).toInt)\n+      } else escapeChar(cp)\n       i += Character.charCount(cp)\n     }\n     out.append('\"')\ndiff --git a/core/src/test/scala/tessera/json/Issue214Scratch.scala b/core/src/test/scala/tessera/json/Issue214Scratch.scala\nnew file mode 100644\nindex 0000000..e3b0c44\n--- /dev/null\n+++ b/core/src/test/scala/tessera/json/Issue214Scratch.scala\n@@ -0,0 +1,8 @@\n+" + SCR.replace('\n', '\n+') + "\n",
        "model_stats": {"total_cost": 3.0412, "instance_cost": 3.0412, "tokens_sent": 298817, "tokens_received": 6114, "api_calls": len(traj)}}
doc = {"environment": "swe_main", "trajectory": traj, "history": history, "info": info}
with open(OUT, 'w') as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)

FACTS = [
    "Please keep this binary compatible with 0.9.x — `sbt mimaReportBinaryIssues` runs in CI and `JsonWriter`/`JsonReader` are public API.",
    "`JsonReader.parseUnicodeEscape` only accepts a *raw* low surrogate after an escaped high surrogate. It has to accept a second `\\uXXXX` escape there too.",
    "tessera.json.StringCodecProps.property: roundTrip[String] with escapeUnicode",
    "method escapeChar(Int)Unit in class tessera.json.JsonWriter does not have a correspondent in current version",
    "keep `escapeChar(c: Int)` as is and split supplementary code points inside `writeString` with `Character.highSurrogate`/`Character.lowSurrogate`",
    "tessera.json.JsonParseException: expected low surrogate after \\uD83D at offset 9",
    "at tessera.json.JsonReader.parseUnicodeEscape(JsonReader.scala:214)",
    "212:      val lo = nextChar()",
]
WHY = [
    "Constraint stated in the issue comment: no public signature changes (the reverted escapeChar(Char) attempt broke it).",
    "The maintainer's hint that turns out to be the remaining work: the reader must accept an escaped low surrogate.",
    "The failing ScalaCheck property that must pass at the end.",
    "Why the first approach was reverted: changing escapeChar's signature breaks MiMa.",
    "The approach taken after the revert (already in the submission diff); must be kept.",
    "Current failure message of the property after the writer fix.",
    "Location of the current failure in the reader.",
    "The line of code to change in JsonReader.parseUnicodeEscape (the reader edit was reverted after a compile error).",
]
if __name__ == '__main__':
    d = json.load(open(OUT))
    for f, h1, h2 in check_facts([d], FACTS):
        print(h1, h2, f[:70])
    raw = open(OUT).read()
    print('steps', len(traj), 'history', len(history), 'bytes', len(raw.encode()), 'tokens', len(raw) // 4)
    json.dump({"transcript": os.path.basename(OUT), "format": "swe-agent", "ecosystem": "Scala 2.13 / sbt (JSON codec library, munit, ScalaCheck, MiMa)",
               "description": "A SWE-agent run on a Scala 2.13 JSON codec library whose writer emits five-digit \\u escapes for supplementary characters when escapeUnicode is on. The agent reproduces the failure with the existing ScalaCheck property, changes the public escapeChar to take a Char and iterate by UTF-16 unit, which fixes the writer but breaks sbt mimaReportBinaryIssues, so it reverts and instead splits supplementary code points into surrogate escapes inside writeString. As the maintainer's quoted hint predicted, the property then fails in JsonReader.parseUnicodeEscape, which accepts only a raw low surrogate. Floods: two 400-line sbt boot/test logs plus a 160-line rerun, a 260-hit grep, repeated identical property runs with a fixed seed and 100-line file views. The run stops at the cost limit after a reader edit that did not compile was reverted, so the reader fix is still missing.",
               "requiredFacts": FACTS, "why": WHY}, open(OUT.replace('.traj', '.facts.json'), 'w'), indent=2, ensure_ascii=False)
