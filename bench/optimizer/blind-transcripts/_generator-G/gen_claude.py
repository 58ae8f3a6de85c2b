import json, sys, os, datetime
sys.path.insert(0, os.path.dirname(__file__))
from common import rng, check_facts

R = rng(7001)
OUT = '/work/blindset-G/claude-code-flutter-riverpod-golden-clock.jsonl'
CWD = '/home/dev/larder_app'
SID = '3b9f2e71-8c4a-4d0e-b6a5-91f0c7d2e4a8'
t0 = datetime.datetime(2026, 12, 1, 8, 40, 3)
lines = []
state = {'n': 0, 'parent': None, 't': t0, 'msg': 0}

def ts():
    state['t'] += datetime.timedelta(seconds=R.randint(3, 40), milliseconds=R.randint(0, 999))
    return state['t'].strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (state['t'].microsecond // 1000)

def uid():
    state['n'] += 1
    return 'e7c4%04x-2d1b-4f6e-9a3c-%012x' % (state['n'], state['n'] * 7919)

def base(typ):
    u = uid()
    d = {"parentUuid": state['parent'], "isSidechain": False, "userType": "external", "cwd": CWD,
         "sessionId": SID, "version": "1.0.112", "gitBranch": "fix/ci-golden-analyze", "type": typ,
         "uuid": u, "timestamp": ts()}
    state['parent'] = u
    return d

def user(text):
    d = base('user'); d['message'] = {"role": "user", "content": text}; lines.append(d)

def asst(block):
    d = base('assistant'); state['msg'] += 1
    d['message'] = {"id": "msg_01Lq%08d" % state['msg'], "type": "message", "role": "assistant",
                    "model": "claude-sonnet-4-20250514", "content": [block], "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 4, "cache_creation_input_tokens": R.randint(200, 3000),
                              "cache_read_input_tokens": 12000 + state['msg'] * 900, "output_tokens": R.randint(40, 600),
                              "service_tier": "standard"}}
    d['requestId'] = 'req_011CV%06d' % state['msg']
    lines.append(d)

def think(t):
    asst({"type": "thinking", "thinking": t, "signature": "EqQBCkYIBxgCKkB" + '%05d' % state['msg']})

def say(t):
    asst({"type": "text", "text": t})

tcount = [0]
def tool(name, inp, content, result, is_error=False):
    tcount[0] += 1
    tid = 'toolu_01%s%04d' % (name[:3].upper(), tcount[0])
    asst({"type": "tool_use", "id": tid, "name": name, "input": inp})
    d = base('user')
    c = {"tool_use_id": tid, "type": "tool_result", "content": content}
    if is_error:
        c['is_error'] = True
    d['message'] = {"role": "user", "content": [c]}
    d['toolUseResult'] = result
    lines.append(d)

def bash(cmd, out, desc, err=False, code=1):
    if err:
        content = 'Error: Exit code %d\n%s' % (code, out)
        tool('Bash', {"command": cmd, "description": desc}, content, content, True)
    else:
        tool('Bash', {"command": cmd, "description": desc}, out,
             {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})

def numbered(text, start=1):
    return '\n'.join('%6d\u2192%s' % (i + start, l) for i, l in enumerate(text.split('\n')))

def read(path, text):
    n = text.count('\n') + 1
    tool('Read', {"file_path": CWD + '/' + path}, numbered(text),
         {"type": "text", "file": {"filePath": CWD + '/' + path, "content": text, "numLines": n, "startLine": 1, "totalLines": n}})

def read_missing(path):
    tool('Read', {"file_path": CWD + '/' + path}, 'File does not exist.', 'Error: File does not exist.', True)

def _start(original, old):
    i = original.find(old)
    return original[:i].count('\n') + 1 if i >= 0 else 1

def edit(path, old, new, original, snippet):
    tool('Edit', {"file_path": CWD + '/' + path, "old_string": old, "new_string": new},
         "The file %s/%s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s" % (CWD, path, snippet),
         {"filePath": CWD + '/' + path, "oldString": old, "newString": new, "originalFile": original,
          "structuredPatch": [{"oldStart": _start(original, old), "oldLines": old.count('\n') + 1, "newStart": _start(original, old), "newLines": new.count('\n') + 1,
                               "lines": ['-' + l for l in old.split('\n')] + ['+' + l for l in new.split('\n')]}],
          "userModified": False, "replaceAll": False})

def grep(pattern, path, out):
    tool('Grep', {"pattern": pattern, "path": CWD + '/' + path, "output_mode": "content", "-n": True}, out,
         {"mode": "content", "numFiles": len(set(l.split(':')[0] for l in out.split('\n'))), "filenames": [], "content": out,
          "numLines": out.count('\n') + 1})

def write(path, text):
    tool('Write', {"file_path": CWD + '/' + path, "content": text}, 'File created successfully at: %s/%s' % (CWD, path),
         {"type": "create", "filePath": CWD + '/' + path, "content": text, "structuredPatch": []})

def meta(d):
    lines.append(d)

# ---------------- noise generators ----------------
FEATURES = ['pantry', 'scanner', 'shopping_list', 'recipes', 'settings', 'auth', 'sync', 'household', 'notifications', 'onboarding']
WORDS = ['item', 'tile', 'badge', 'controller', 'repository', 'service', 'view', 'sheet', 'dialog', 'card', 'filter', 'sort', 'model', 'state']

def analyze_output(errors, n_info=240):
    rules = ['prefer_const_constructors', 'prefer_const_literals_to_create_immutables', 'sort_child_properties_last',
             'use_super_parameters', 'avoid_redundant_argument_values', 'unnecessary_lambdas', 'prefer_final_locals',
             'require_trailing_commas', 'use_build_context_synchronously', 'deprecated_member_use']
    msgs = {'prefer_const_constructors': "Use 'const' with the constructor to improve performance",
            'prefer_const_literals_to_create_immutables': "Use 'const' literals as arguments to constructors of '@immutable' classes",
            'sort_child_properties_last': "The 'child' argument should be last in widget constructor invocations",
            'use_super_parameters': "Parameter 'key' could be a super parameter",
            'avoid_redundant_argument_values': "The value of the argument is redundant because it matches the default value",
            'unnecessary_lambdas': "Closure should be a tearoff",
            'prefer_final_locals': "Local variables should be final",
            'require_trailing_commas': "Missing a required trailing comma",
            'use_build_context_synchronously': "Don't use 'BuildContext's across async gaps",
            'deprecated_member_use': "'withOpacity' is deprecated and shouldn't be used. Use .withValues() to avoid precision loss"}
    out = ['Analyzing larder_app...', '']
    items = []
    for i in range(n_info):
        r = R.choice(rules)
        f = R.choice(FEATURES); w = R.choice(WORDS)
        sev = 'warning' if r == 'use_build_context_synchronously' else 'info'
        items.append('%7s • %s • lib/features/%s/%s_%s.dart:%d:%d • %s' % (sev, msgs[r], f, f, w, R.randint(8, 300), R.randint(3, 40), r))
    for pos, e in errors:
        items.insert(pos, e)
    out += items
    out += ['', '%d issues found. (ran in 14.%ds)' % (len(items), R.randint(1, 9))]
    return '\n'.join(out)

def test_log(failures, total=420, extra_fail_text=''):
    out = []
    p = 0; f = 0
    sec = 0
    groups = ['PantryRepository', 'PantryListNotifier', 'ShoppingListNotifier', 'RecipeParser', 'SettingsController', 'SyncQueue',
              'HouseholdInvite', 'NotificationScheduler', 'OnboardingFlow', 'ScanPayload', 'UnitConverter', 'ExpiryFormatter']
    verbs = ['loads items from cache', 'emits loading then data', 'handles empty response', 'retries after timeout', 'dedupes by barcode',
             'sorts by expiry date', 'persists to hive box', 'maps DTO to domain', 'ignores unknown fields', 'throws on malformed json',
             'respects household scope', 'debounces search input', 'restores after app restart', 'formats quantity with unit']
    fail_at = {}
    step = total // (len(failures) + 1)
    for k, fl in enumerate(failures):
        fail_at[(k + 1) * step] = fl
    for i in range(total):
        if i % 9 == 0:
            sec += 1
        if i in fail_at:
            name, body = fail_at[i]
            out.append('%02d:%02d +%d -%d: %s' % (sec // 60, sec % 60, p, f, name))
            out.append(body)
            f += 1
            out.append('%02d:%02d +%d -%d: %s [E]' % (sec // 60, sec % 60, p, f, name))
        else:
            name = '%s %s' % (R.choice(groups), R.choice(verbs))
            out.append('%02d:%02d +%d -%d: %s' % (sec // 60, sec % 60, p, f, name))
            p += 1
    if f:
        out.append('%02d:%02d +%d -%d: Some tests failed.' % (sec // 60, sec % 60, p, f))
    else:
        out.append('%02d:%02d +%d: All tests passed!' % (sec // 60, sec % 60, p))
    return '\n'.join(out)

def deps_tree():
    pkgs = ['flutter_riverpod 2.5.1', 'riverpod 2.5.1', 'state_notifier 1.0.0', 'hive 2.2.3', 'hive_flutter 1.1.0', 'dio 5.4.3+1',
            'freezed_annotation 2.4.1', 'json_annotation 4.9.0', 'go_router 14.2.0', 'intl 0.19.0', 'collection 1.18.0',
            'meta 1.12.0', 'path_provider 2.1.3', 'shared_preferences 2.2.3', 'mobile_scanner 5.1.1', 'golden_toolkit 0.15.0',
            'mocktail 1.0.3', 'flutter_lints 4.0.0', 'build_runner 2.4.11', 'freezed 2.5.2', 'json_serializable 6.8.0']
    sub = ['async', 'boolean_selector', 'characters', 'clock', 'collection', 'fake_async', 'leak_tracker', 'leak_tracker_flutter_testing',
           'matcher', 'material_color_utilities', 'meta', 'path', 'source_span', 'stack_trace', 'stream_channel', 'string_scanner',
           'term_glyph', 'test_api', 'vector_math', 'vm_service', 'typed_data', 'crypto', 'convert', 'ffi', 'platform', 'plugin_platform_interface',
           'http', 'http_parser', 'web', 'xdg_directories', 'args', 'analyzer', '_fe_analyzer_shared', 'glob', 'watcher', 'yaml', 'pub_semver',
           'package_config', 'pool', 'shelf', 'shelf_web_socket', 'timing', 'graphs', 'logging', 'dart_style', 'code_builder', 'built_value', 'built_collection',
           'checked_yaml', 'pubspec_parse', 'io', 'mime', 'frontend_server_client', 'js', 'file', 'uuid', 'fixnum', 'sprintf']
    out = ['Dart SDK 3.4.3', 'Flutter SDK 3.22.2', 'larder_app 1.8.0+57', '|']
    for p in pkgs:
        out.append('|-- ' + p)
        for _ in range(R.randint(3, 10)):
            s = R.choice(sub)
            out.append('|   |-- %s %d.%d.%d' % (s, R.randint(0, 4), R.randint(0, 20), R.randint(0, 9)))
            for _ in range(R.randint(0, 4)):
                out.append('|   |   |-- %s %d.%d.%d' % (R.choice(sub), R.randint(0, 4), R.randint(0, 20), R.randint(0, 9)))
    out.append('|-- flutter 0.0.0')
    for s in ['characters', 'collection', 'material_color_utilities', 'meta', 'sky_engine', 'vector_math']:
        out.append('|   |-- %s' % s)
    return '\n'.join(out)

def grep_hits(n, pattern_line):
    out = []
    for _ in range(n):
        f = R.choice(FEATURES); w = R.choice(WORDS)
        out.append('lib/features/%s/%s_%s.dart:%d:%s' % (f, f, w, R.randint(5, 260), pattern_line(R)))
    return '\n'.join(out)

def long_dart(name, n):
    out = ["import 'package:flutter/material.dart';", "import 'package:flutter_riverpod/flutter_riverpod.dart';", '',
           "import '../../core/theme/larder_colors.dart';", "import 'pantry_list_notifier.dart';", "import 'expiry_badge.dart';", '']
    out.append('class %s extends ConsumerWidget {' % name)
    out.append('  const %s({super.key});' % name)
    out.append('')
    i = 0
    while len(out) < n:
        i += 1
        out += ['  Widget _section%d(BuildContext context, WidgetRef ref) {' % i,
                '    final items = ref.watch(pantryListProvider.select((s) => s.items));',
                '    final theme = Theme.of(context);',
                '    return Padding(',
                '      padding: const EdgeInsets.symmetric(horizontal: 16, vertical: %d),' % R.choice([4, 8, 12]),
                '      child: Column(',
                '        crossAxisAlignment: CrossAxisAlignment.start,',
                '        children: [',
                "          Text('Section %d', style: theme.textTheme.titleSmall)," % i,
                '          for (final item in items.take(%d))' % R.randint(2, 9),
                '            ListTile(',
                '              title: Text(item.name),',
                '              subtitle: Text(item.quantityLabel),',
                '              trailing: ExpiryBadge(itemId: item.id),',
                '              tileColor: theme.colorScheme.surfaceContainerLow,',
                '            ),',
                '        ],',
                '      ),',
                '    );',
                '  }', '']
    out.append('}')
    return '\n'.join(out)

# ---------------- story ----------------
meta({"type": "summary", "summary": "Fix flutter analyze error and PantryListPage golden failures", "leafUuid": "e7c40001-2d1b-4f6e-9a3c-000000001eef"})
meta({"type": "file-history-snapshot", "messageId": "e7c4snap01", "snapshot": {"messageId": "e7c4snap01", "trackedFileBackups": {}, "timestamp": "2026-12-01T08:40:01.000Z"}, "isSnapshotUpdate": False})

user("CI is red on larder_app (branch fix/ci-golden-analyze). Two things fail: `flutter analyze` and the golden test in test/goldens/pantry_list_golden_test.dart. Please get both green.\n\n"
     "Rules:\n- Do not regenerate or edit any golden PNG under test/goldens/goldens/ — design approved those images.\n"
     "- Keep the platform channel name 'com.larder.app/barcode' unchanged; the Kotlin and Swift host code hardcode it.\n"
     "- Don't bump anything in pubspec.yaml.")
think("Start by reproducing both failures locally: flutter analyze first, then the golden test. Keep the constraints in mind: no golden regeneration, channel name fixed, no pubspec bumps.")
say("I'll reproduce both failures, starting with `flutter analyze`.")
bash('git status --short && git log --oneline -6', 'a41c9e2 (HEAD -> fix/ci-golden-analyze, origin/main) design: new dark surface colors (#388)\n9c1e07f scanner: move constants import (#386)\n3f5a2d8 pantry: expiry badge levels (#381)\n7d02b11 goldens: re-record pantry list with clock fixed at 2026-03-14 09:00 UTC\ne08b4c6 deps: flutter_riverpod 2.5.1\n5f19a80 goldens: add pantry list light/dark', 'Check branch state')
read('pubspec.yaml', "name: larder_app\ndescription: Household pantry tracker.\npublish_to: 'none'\nversion: 1.8.0+57\n\nenvironment:\n  sdk: '>=3.4.0 <4.0.0'\n  flutter: 3.22.2\n\ndependencies:\n  flutter:\n    sdk: flutter\n  flutter_riverpod: ^2.5.1\n  hive: ^2.2.3\n  hive_flutter: ^1.1.0\n  dio: ^5.4.3\n  go_router: ^14.2.0\n  intl: ^0.19.0\n  freezed_annotation: ^2.4.1\n  json_annotation: ^4.9.0\n  mobile_scanner: ^5.1.1\n\ndev_dependencies:\n  flutter_test:\n    sdk: flutter\n  flutter_lints: ^4.0.0\n  golden_toolkit: ^0.15.0\n  mocktail: ^1.0.3\n  build_runner: ^2.4.11\n  freezed: ^2.5.2\n  json_serializable: ^6.8.0\n\nflutter:\n  uses-material-design: true\n  fonts:\n    - family: Inter\n      fonts:\n        - asset: assets/fonts/Inter-Regular.ttf\n        - asset: assets/fonts/Inter-SemiBold.ttf\n          weight: 600")
bash('flutter --version', 'Flutter 3.22.2 • channel stable • https://github.com/flutter/flutter.git\nFramework • revision 761747bfc5 (6 months ago) • 2024-06-05 22:15:13 +0200\nEngine • revision edd8546116\nTools • Dart 3.4.3 • DevTools 2.34.3', 'Show Flutter version')
an1 = analyze_output([
    (37, "  error • Undefined name 'kScanTimeout' • lib/features/scanner/scanner_controller.dart:31:22 • undefined_identifier"),
    (118, "  error • The argument type 'Object?' can't be assigned to the parameter type 'Map<String, dynamic>' • lib/features/scanner/barcode_channel.dart:57:28 • argument_type_not_assignable"),
    (201, "warning • Unused import: '../../core/constants.dart' • lib/features/scanner/scan_result_sheet.dart:4:8 • unused_import"),
], 135)
bash('flutter analyze', an1, 'Run flutter analyze', err=True, code=1)
think("Two errors among ~140 infos. The infos are pre-existing lints (CI uses --no-fatal-infos). Errors: undefined kScanTimeout in scanner_controller.dart:31 and an Object? -> Map<String, dynamic> at barcode_channel.dart:57:28. Also one warning for an unused import.")
say("Out of ~140 issues, only three matter for CI (which runs with `--no-fatal-infos`):\n\n1. `Undefined name 'kScanTimeout'` at lib/features/scanner/scanner_controller.dart:31:22\n2. `The argument type 'Object?' can't be assigned to the parameter type 'Map<String, dynamic>'` at lib/features/scanner/barcode_channel.dart:57:28\n3. an unused import warning in scan_result_sheet.dart\n\nLet me look at the scanner controller first.")
bash('cat .github/workflows/ci.yml | sed -n 20,60p', "      - uses: subosito/flutter-action@v2\n        with:\n          flutter-version: '3.22.2'\n          channel: stable\n          cache: true\n      - run: flutter pub get\n      - run: flutter analyze --no-fatal-infos\n      - run: flutter test --reporter expanded\n      - name: Upload golden failures\n        if: failure()\n        uses: actions/upload-artifact@v4\n        with:\n          name: golden-failures\n          path: test/goldens/failures/", 'Check CI workflow steps')
ctrl = """import 'dart:async';

import 'package:flutter_riverpod/flutter_riverpod.dart';

import 'barcode_channel.dart';
import 'scan_result.dart';

final scannerControllerProvider =
    StateNotifierProvider<ScannerController, ScanState>((ref) {
  return ScannerController(ref.watch(barcodeChannelProvider));
});

class ScanState {
  const ScanState({this.scanning = false, this.last, this.error});
  final bool scanning;
  final ScanResult? last;
  final String? error;

  ScanState copyWith({bool? scanning, ScanResult? last, String? error}) =>
      ScanState(scanning: scanning ?? this.scanning, last: last ?? this.last, error: error);
}

class ScannerController extends StateNotifier<ScanState> {
  ScannerController(this._channel) : super(const ScanState());
  final BarcodeChannel _channel;

  Future<void> scan() async {
    state = state.copyWith(scanning: true);
    try {
      final result = await _channel.scan().timeout(
            kScanTimeout,
          );
      state = state.copyWith(scanning: false, last: result);
    } on TimeoutException {
      state = state.copyWith(scanning: false, error: 'timeout');
    }
  }
}"""
read('lib/features/scanner/scanner_controller.dart', ctrl)
grep('kScanTimeout', 'lib', "lib/core/constants.dart:12:const kScanTimeout = Duration(seconds: 20);\nlib/features/scanner/scanner_controller.dart:31:            kScanTimeout,")
say("`kScanTimeout` lives in lib/core/constants.dart; the import was moved to scan_result_sheet.dart by mistake (that's the unused import warning). I'll import it in the controller and drop the unused one.")
edit('lib/features/scanner/scanner_controller.dart', "import 'barcode_channel.dart';", "import '../../core/constants.dart';\nimport 'barcode_channel.dart';", ctrl,
     "     5\u2192import '../../core/constants.dart';\n     6\u2192import 'barcode_channel.dart';")
edit('lib/features/scanner/scan_result_sheet.dart', "import '../../core/constants.dart';\n", "", "import 'package:flutter/material.dart';\n\nimport '../../core/constants.dart';\nimport 'scan_result.dart';\n",
     "     1\u2192import 'package:flutter/material.dart';\n     2\u2192\n     3\u2192import 'scan_result.dart';")
chan = """import 'package:flutter/services.dart';
import 'package:flutter_riverpod/flutter_riverpod.dart';

import 'scan_result.dart';

/// Name shared with android/app/src/main/kotlin/.../BarcodePlugin.kt and
/// ios/Runner/BarcodePlugin.swift. Do not rename.
const kBarcodeChannelName = 'com.larder.app/barcode';

final barcodeChannelProvider = Provider<BarcodeChannel>((ref) {
  return BarcodeChannel(const MethodChannel(kBarcodeChannelName));
});

class BarcodeChannel {
  BarcodeChannel(this._channel);
  final MethodChannel _channel;

  Future<bool> isAvailable() async {
    final ok = await _channel.invokeMethod<bool>('isAvailable');
    return ok ?? false;
  }

  Future<void> setTorch({required bool on}) {
    return _channel.invokeMethod<void>('setTorch', {'on': on});
  }

  Future<List<String>> supportedFormats() async {
    final formats = await _channel.invokeListMethod<String>('formats');
    return formats ?? const [];
  }

  /// Opens the native scanner UI and waits for a result.
  ///
  /// The host side replies with a map:
  ///   {"code": "4006381333931", "format": "ean13", "ts": 1718000000000}
  /// or null when the user cancelled.
  Future<ScanResult?> scan() async {
    try {
      final Object? result = await _channel.invokeMethod('scan', {
        'formats': ['ean13', 'ean8', 'upc_a', 'qr'],
        'beep': true,
      });
      if (result == null) {
        return null;
      }
      // TODO(mira): the host returns Map<Object?, Object?>; see LARDER-377.
      //
      //
      //
      //
      //
      //
      //
      //
      final payload = ScanPayload.fromJson(result);
      return ScanResult.fromPayload(payload);
    } on PlatformException catch (e) {
      if (e.code == 'CANCELLED') return null;
      rethrow;
    }
  }
}"""
read('lib/features/scanner/barcode_channel.dart', chan)
think("Line 57 passes Object? to ScanPayload.fromJson(Map<String, dynamic>). Quick fix: invokeMethod<Map<String, dynamic>>. But platform channels decode maps as Map<Object?, Object?>, so a typed invokeMethod would throw at runtime. Let me check the channel test first.")
chtest = """import 'package:flutter/services.dart';
import 'package:flutter_test/flutter_test.dart';
import 'package:larder_app/features/scanner/barcode_channel.dart';

void main() {
  TestWidgetsFlutterBinding.ensureInitialized();
  const channel = MethodChannel(kBarcodeChannelName);
  late BarcodeChannel sut;

  setUp(() {
    sut = BarcodeChannel(channel);
  });

  tearDown(() {
    TestDefaultBinaryMessengerBinding.instance.defaultBinaryMessenger
        .setMockMethodCallHandler(channel, null);
  });

  test('scan returns a ScanResult for a host map', () async {
    TestDefaultBinaryMessengerBinding.instance.defaultBinaryMessenger
        .setMockMethodCallHandler(channel, (call) async {
      expect(call.method, 'scan');
      return <Object?, Object?>{'code': '4006381333931', 'format': 'ean13', 'ts': 1718000000000};
    });
    final result = await sut.scan();
    expect(result!.code, '4006381333931');
    expect(result.format, BarcodeFormat.ean13);
  });

  test('scan returns null when cancelled', () async {
    TestDefaultBinaryMessengerBinding.instance.defaultBinaryMessenger
        .setMockMethodCallHandler(channel, (call) async {
      throw PlatformException(code: 'CANCELLED');
    });
    expect(await sut.scan(), isNull);
  });
}"""
read('test/features/scanner/barcode_channel_test.dart', chtest)
say("The test already mocks the host reply as `Map<Object?, Object?>`, which is what the standard codec really delivers. I'll try the typed `invokeMethod` first and see whether the test accepts it.")
edit('lib/features/scanner/barcode_channel.dart', "      final Object? result = await _channel.invokeMethod('scan', {",
     "      final result = await _channel.invokeMethod<Map<String, dynamic>>('scan', {", chan,
     "    40\u2192      final result = await _channel.invokeMethod<Map<String, dynamic>>('scan', {")
castfail = """00:02 +0: loading test/features/scanner/barcode_channel_test.dart
00:02 +0: scan returns a ScanResult for a host map
00:02 +0 -1: scan returns a ScanResult for a host map [E]
  type '_Map<Object?, Object?>' is not a subtype of type 'Map<String, dynamic>?' in type cast
  package:flutter/src/services/platform_channel.dart 309:43  MethodChannel._invokeMethod
  ===== asynchronous gap ===========================
  package:larder_app/features/scanner/barcode_channel.dart 40:22  BarcodeChannel.scan
  ===== asynchronous gap ===========================
  test/features/scanner/barcode_channel_test.dart 25:20  main.<fn>

00:02 +0 -1: scan returns null when cancelled
00:02 +1 -1: Some tests failed."""
bash('flutter test test/features/scanner/barcode_channel_test.dart', castfail, 'Run barcode channel tests', err=True)
say("As expected, the typed `invokeMethod` casts the whole reply and fails at runtime:\n\n`type '_Map<Object?, Object?>' is not a subtype of type 'Map<String, dynamic>?' in type cast` (barcode_channel.dart 40:22).\n\nThe right fix is `_channel.invokeMapMethod<String, dynamic>('scan')`, which converts the map with `Map.cast` instead of a hard cast. I'll revert my edit for now and come back to it after looking at the golden failure, since the two might share the scanner fixture.")
bash('git checkout -- lib/features/scanner/barcode_channel.dart && git status --short', ' M lib/features/scanner/scan_result_sheet.dart\n M lib/features/scanner/scanner_controller.dart', 'Revert channel edit')

# golden
say("Now the golden test.")
g1 = """00:03 +0: loading test/goldens/pantry_list_golden_test.dart
00:05 +0: PantryListPage golden light
══╡ EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK ╞════════════════════════════════════════════════════
The following assertion was thrown while running async test code:
Golden "goldens/pantry_list_light.png": Pixel test failed, 2.31%, 9032px diff detected.
Failure feedback can be found at /home/dev/larder_app/test/goldens/failures

When the exception was thrown, this was the stack:
#0      LocalFileComparator.compare (package:flutter_test/src/_goldens_io.dart:101:7)
<asynchronous suspension>
#1      expectLater.<anonymous closure> (package:flutter_test/src/widget_tester.dart:480:24)
<asynchronous suspension>
#2      screenMatchesGolden (package:golden_toolkit/src/testing_tools.dart:106:3)
<asynchronous suspension>
#3      main.<anonymous closure> (file:///home/dev/larder_app/test/goldens/pantry_list_golden_test.dart:38:5)
<asynchronous suspension>
════════════════════════════════════════════════════════════════════════════════════════════════════
00:06 +0 -1: PantryListPage golden light [E]
  Test failed. See exception logs above.
  The test description was: PantryListPage golden light

00:06 +0 -1: PantryListPage golden dark
══╡ EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK ╞════════════════════════════════════════════════════
The following assertion was thrown while running async test code:
Golden "goldens/pantry_list_dark.png": Pixel test failed, 5.02%, 19654px diff detected.
Failure feedback can be found at /home/dev/larder_app/test/goldens/failures
════════════════════════════════════════════════════════════════════════════════════════════════════
00:07 +0 -2: PantryListPage golden dark [E]
  Test failed. See exception logs above.
  The test description was: PantryListPage golden dark

00:07 +0 -2: Some tests failed."""
bash('flutter test test/goldens/pantry_list_golden_test.dart', g1, 'Run golden test', err=True)
bash('ls -la test/goldens/failures/', 'total 1408\ndrwxr-xr-x 2 dev dev   4096 Dec  1 08:44 .\ndrwxr-xr-x 4 dev dev   4096 Dec  1 08:44 ..\n-rw-r--r-- 1 dev dev 181203 Dec  1 08:44 pantry_list_dark_isolatedDiff.png\n-rw-r--r-- 1 dev dev 178840 Dec  1 08:44 pantry_list_dark_maskedDiff.png\n-rw-r--r-- 1 dev dev 120331 Dec  1 08:44 pantry_list_dark_masterImage.png\n-rw-r--r-- 1 dev dev 122087 Dec  1 08:44 pantry_list_dark_testImage.png\n-rw-r--r-- 1 dev dev 164990 Dec  1 08:44 pantry_list_light_isolatedDiff.png\n-rw-r--r-- 1 dev dev 163472 Dec  1 08:44 pantry_list_light_maskedDiff.png\n-rw-r--r-- 1 dev dev 118770 Dec  1 08:44 pantry_list_light_masterImage.png\n-rw-r--r-- 1 dev dev 119204 Dec  1 08:44 pantry_list_light_testImage.png', 'List golden failure images')
gtest = """import 'package:flutter/material.dart';
import 'package:flutter_riverpod/flutter_riverpod.dart';
import 'package:flutter_test/flutter_test.dart';
import 'package:golden_toolkit/golden_toolkit.dart';
import 'package:larder_app/core/theme/larder_theme.dart';
import 'package:larder_app/features/pantry/pantry_list_page.dart';
import 'package:larder_app/features/pantry/pantry_repository.dart';

import '../fakes/fake_pantry_repository.dart';

void main() {
  Widget app(ThemeData theme) => ProviderScope(
        overrides: [
          pantryRepositoryProvider.overrideWithValue(FakePantryRepository.sample()),
        ],
        child: MaterialApp(
          debugShowCheckedModeBanner: false,
          theme: theme,
          home: const PantryListPage(),
        ),
      );

  testGoldens('PantryListPage golden light', (tester) async {
    await tester.pumpWidgetBuilder(
      app(LarderTheme.light()),
      surfaceSize: const Size(390, 844),
    );
    await screenMatchesGolden(tester, 'pantry_list_light');
  });

  testGoldens('PantryListPage golden dark', (tester) async {
    await tester.pumpWidgetBuilder(
      app(LarderTheme.dark()),
      surfaceSize: const Size(390, 844),
    );
    await screenMatchesGolden(tester, 'pantry_list_dark');
  });
}"""
read('test/goldens/pantry_list_golden_test.dart', gtest)
read_missing('test/goldens/flutter_test_config.dart')
read('test/flutter_test_config.dart', "import 'dart:async';\n\nimport 'package:golden_toolkit/golden_toolkit.dart';\n\nFuture<void> testExecutable(FutureOr<void> Function() testMain) async {\n  return GoldenToolkit.runWithConfiguration(\n    () async {\n      await loadAppFonts();\n      await testMain();\n    },\n    config: GoldenToolkitConfiguration(\n      enableRealShadows: false,\n      defaultDevices: const [Device.phone],\n    ),\n  );\n}")
say("Fonts are loaded via `loadAppFonts()` in test/flutter_test_config.dart, so this isn't the usual Ahem-font problem.")
page = long_dart('PantryListPage', 340)
read('lib/features/pantry/pantry_list_page.dart', page)
think("The page is large and watches pantryListProvider in many places. The notifier loads asynchronously from the repository; the golden may be captured while the shimmer placeholders are still visible. screenMatchesGolden does pumpAndSettle by default but the shimmer animates forever... Let me look at the notifier.")
notifier = """import 'package:flutter_riverpod/flutter_riverpod.dart';

import 'pantry_item.dart';
import 'pantry_repository.dart';

final pantryListProvider =
    StateNotifierProvider<PantryListNotifier, PantryListState>((ref) {
  return PantryListNotifier(ref.watch(pantryRepositoryProvider))..load();
});

class PantryListState {
  const PantryListState({this.items = const [], this.loading = true});
  final List<PantryItem> items;
  final bool loading;
}

class PantryListNotifier extends StateNotifier<PantryListState> {
  PantryListNotifier(this._repo) : super(const PantryListState());
  final PantryRepository _repo;

  Future<void> load() async {
    final items = await _repo.fetchAll();
    if (!mounted) return;
    state = PantryListState(items: items, loading: false);
  }
}"""
read('lib/features/pantry/pantry_list_notifier.dart', notifier)
grep('ref\\.(watch|read)\\(pantryListProvider', 'lib', grep_hits(170, lambda r: r.choice([
    '    final items = ref.watch(pantryListProvider.select((s) => s.items));',
    '    final loading = ref.watch(pantryListProvider.select((s) => s.loading));',
    '      ref.read(pantryListProvider.notifier).load();',
    '    final state = ref.watch(pantryListProvider);'])))
think("pantryListProvider is used in 300+ places. The notifier's load() is fire-and-forget in the provider body, so tests can't await it. Migrating to AsyncNotifierProvider would let the golden test await `pantryListProvider.future` and render the data state deterministically. That's a bigger change, but it fixes the root cause of the loading-state race.")
say("The notifier kicks off `load()` inside the provider body, so the golden test has no way to wait for the data. I'll migrate `PantryListNotifier` to an `AsyncNotifier` so the test can `await container.read(pantryListProvider.future)` before taking the screenshot.")
newnotifier = """import 'package:flutter_riverpod/flutter_riverpod.dart';

import 'pantry_item.dart';
import 'pantry_repository.dart';

final pantryListProvider =
    AsyncNotifierProvider<PantryListNotifier, List<PantryItem>>(PantryListNotifier.new);

class PantryListNotifier extends AsyncNotifier<List<PantryItem>> {
  @override
  Future<List<PantryItem>> build() {
    return ref.watch(pantryRepositoryProvider).fetchAll();
  }

  Future<void> reload() async {
    state = const AsyncLoading();
    state = await AsyncValue.guard(() => ref.read(pantryRepositoryProvider).fetchAll());
  }
}"""
write('lib/features/pantry/pantry_list_notifier.dart', newnotifier)
edit('lib/features/pantry/pantry_list_page.dart', '    final items = ref.watch(pantryListProvider.select((s) => s.items));',
     '    final items = ref.watch(pantryListProvider).valueOrNull ?? const [];', page,
     '    17\u2192    final items = ref.watch(pantryListProvider).valueOrNull ?? const [];')
bash("sed -i 's/ref.watch(pantryListProvider.select((s) => s.items))/(ref.watch(pantryListProvider).valueOrNull ?? const [])/' $(grep -rl 'pantryListProvider.select' lib)", '', 'Rewrite remaining select() call sites')
an2 = analyze_output([
    (12, "  error • The getter 'loading' isn't defined for the type 'AsyncValue<List<PantryItem>>' • lib/features/pantry/pantry_list_page.dart:44:61 • undefined_getter"),
    (40, "  error • The method 'load' isn't defined for the type 'PantryListNotifier' • lib/features/shopping_list/shopping_list_sheet.dart:88:46 • undefined_method"),
    (77, "  error • The method 'load' isn't defined for the type 'PantryListNotifier' • lib/features/sync/sync_listener.dart:23:44 • undefined_method"),
    (130, "  error • The argument type 'Object?' can't be assigned to the parameter type 'Map<String, dynamic>' • lib/features/scanner/barcode_channel.dart:57:28 • argument_type_not_assignable"),
    (160, "  error • The getter 'items' isn't defined for the type 'AsyncValue<List<PantryItem>>' • lib/features/household/household_summary.dart:51:38 • undefined_getter"),
], 130)
bash('flutter analyze', an2, 'Analyze after AsyncNotifier migration', err=True)
say("The migration ripples further than the page: `load()` and `.loading`/`.items` are used in shopping_list, sync and household. I'll fix those call sites and then run the whole suite.")
edit('lib/features/sync/sync_listener.dart', "      ref.read(pantryListProvider.notifier).load();", "      ref.read(pantryListProvider.notifier).reload();",
     "      ref.read(pantryListProvider.notifier).load();\n", "    23\u2192      ref.read(pantryListProvider.notifier).reload();")
edit('lib/features/shopping_list/shopping_list_sheet.dart', "          onPressed: () => ref.read(pantryListProvider.notifier).load(),", "          onPressed: () => ref.read(pantryListProvider.notifier).reload(),",
     "          onPressed: () => ref.read(pantryListProvider.notifier).load(),\n", "    88\u2192          onPressed: () => ref.read(pantryListProvider.notifier).reload(),")
fails = [('test/features/pantry/pantry_list_notifier_test.dart: PantryListNotifier emits loading then data',
          "  Expected: <Instance of 'PantryListState'>\n    Actual: AsyncData<List<PantryItem>>:<AsyncData<List<PantryItem>>(value: [PantryItem(milk), PantryItem(eggs)])>\n  package:matcher                                         expect\n  test/features/pantry/pantry_list_notifier_test.dart 31:7  main.<fn>")] + \
        [('test/features/%s/%s_test.dart: %s' % (f, f, n), "  Bad state: Tried to read the state of an uninitialized provider\n  package:riverpod/src/framework/element.dart 284:7  ProviderElementBase.requireState\n  test/features/%s/%s_test.dart %d:9  main.<fn>" % (f, f, R.randint(20, 90)))
         for f, n in [('pantry', 'PantryListPage shows shimmer while loading'), ('household', 'HouseholdSummary counts items'),
                      ('shopping_list', 'ShoppingListSheet refresh reloads pantry'), ('sync', 'SyncListener reloads on remote change'),
                      ('pantry', 'PantryListPage pull to refresh'), ('pantry', 'PantryListNotifier handles repository error'),
                      ('household', 'HouseholdSummary empty state'), ('pantry', 'PantryListPage filters by location'),
                      ('shopping_list', 'ShoppingListSheet adds missing items'), ('sync', 'SyncListener ignores own writes'),
                      ('pantry', 'PantryListPage sorts by expiry'), ('pantry', 'PantryListPage swipe to delete'),
                      ('household', 'HouseholdSummary low stock banner')]]
bash('flutter test', test_log(fails, 700), 'Run full test suite', err=True)
say("14 tests across pantry, household, shopping_list and sync now fail: they construct `PantryListState` directly or call `load()`. Fixing them means rewriting most of the pantry test helpers. I'll start with the notifier test.")
user("Stop — don't migrate to AsyncNotifier in this PR. That's a separate ticket (LARDER-412) and it touches way too many files. Revert it and keep StateNotifierProvider. Fix the golden through the test setup instead.")
think("User rejected the migration. Revert all pantry/shopping_list/sync/household changes but keep the kScanTimeout import and unused import fix.")
say("Understood — reverting the AsyncNotifier migration and keeping `StateNotifierProvider`.")
bash('git checkout -- lib/features/pantry/ lib/features/shopping_list/ lib/features/sync/ lib/features/household/ && git status --short', ' M lib/features/scanner/scan_result_sheet.dart\n M lib/features/scanner/scanner_controller.dart', 'Revert AsyncNotifier migration')
bash('git diff --stat', ' lib/features/scanner/scan_result_sheet.dart  | 1 -\n lib/features/scanner/scanner_controller.dart | 1 +\n 2 files changed, 1 insertion(+), 1 deletion(-)', 'Confirm only scanner fixes remain')
fake = """import 'package:larder_app/features/pantry/pantry_item.dart';
import 'package:larder_app/features/pantry/pantry_repository.dart';

class FakePantryRepository implements PantryRepository {
  FakePantryRepository(this._items);

  factory FakePantryRepository.sample() => FakePantryRepository([
        PantryItem(id: 'p1', name: 'Oat milk', quantity: 2, unit: 'l', expiresOn: DateTime.utc(2026, 3, 16)),
        PantryItem(id: 'p2', name: 'Eggs', quantity: 10, unit: 'pcs', expiresOn: DateTime.utc(2026, 3, 21)),
        PantryItem(id: 'p3', name: 'Spinach', quantity: 1, unit: 'bag', expiresOn: DateTime.utc(2026, 3, 15)),
        PantryItem(id: 'p4', name: 'Basmati rice', quantity: 1, unit: 'kg', expiresOn: DateTime.utc(2027, 1, 1)),
        PantryItem(id: 'p5', name: 'Greek yoghurt', quantity: 3, unit: 'pcs', expiresOn: DateTime.utc(2026, 3, 14)),
      ]);

  final List<PantryItem> _items;

  @override
  Future<List<PantryItem>> fetchAll() async => List.unmodifiable(_items);

  @override
  Future<void> upsert(PantryItem item) async {}

  @override
  Future<void> remove(String id) async {}
}"""
read('test/fakes/fake_pantry_repository.dart', fake)
think("The fake resolves on a microtask; pumpWidgetBuilder pumps once. screenMatchesGolden calls pumpAndSettle unless customPump is given, but the shimmer runs a repeating animation only while loading. If we pump once more after the first frame, load() completes. Add `await tester.pump();` before screenMatchesGolden? Better: pumpAndSettle with the fake resolving. Try adding an explicit pump in the test.")
edit('test/goldens/pantry_list_golden_test.dart', "      surfaceSize: const Size(390, 844),\n    );\n    await screenMatchesGolden(tester, 'pantry_list_light');",
     "      surfaceSize: const Size(390, 844),\n    );\n    await tester.pump(); // let PantryListNotifier.load() resolve\n    await screenMatchesGolden(tester, 'pantry_list_light');", gtest,
     "    28\u2192    await tester.pump(); // let PantryListNotifier.load() resolve\n    29\u2192    await screenMatchesGolden(tester, 'pantry_list_light');")
edit('test/goldens/pantry_list_golden_test.dart', "      surfaceSize: const Size(390, 844),\n    );\n    await screenMatchesGolden(tester, 'pantry_list_dark');",
     "      surfaceSize: const Size(390, 844),\n    );\n    await tester.pump(); // let PantryListNotifier.load() resolve\n    await screenMatchesGolden(tester, 'pantry_list_dark');", gtest,
     "    36\u2192    await tester.pump(); // let PantryListNotifier.load() resolve\n    37\u2192    await screenMatchesGolden(tester, 'pantry_list_dark');")
g2 = """00:03 +0: loading test/goldens/pantry_list_golden_test.dart
00:05 +0: PantryListPage golden light
══╡ EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK ╞════════════════════════════════════════════════════
The following assertion was thrown while running async test code:
Golden "goldens/pantry_list_light.png": Pixel test failed, 0.42%, 1638px diff detected.
Failure feedback can be found at /home/dev/larder_app/test/goldens/failures

When the exception was thrown, this was the stack:
#0      LocalFileComparator.compare (package:flutter_test/src/_goldens_io.dart:101:7)
<asynchronous suspension>
#1      expectLater.<anonymous closure> (package:flutter_test/src/widget_tester.dart:480:24)
<asynchronous suspension>
#2      screenMatchesGolden (package:golden_toolkit/src/testing_tools.dart:106:3)
<asynchronous suspension>
#3      main.<anonymous closure> (file:///home/dev/larder_app/test/goldens/pantry_list_golden_test.dart:29:5)
<asynchronous suspension>
════════════════════════════════════════════════════════════════════════════════════════════════════
00:06 +0 -1: PantryListPage golden light [E]
  Test failed. See exception logs above.
  The test description was: PantryListPage golden light

00:06 +0 -1: PantryListPage golden dark
══╡ EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK ╞════════════════════════════════════════════════════
The following assertion was thrown while running async test code:
Golden "goldens/pantry_list_dark.png": Pixel test failed, 3.87%, 15187px diff detected.
Failure feedback can be found at /home/dev/larder_app/test/goldens/failures
════════════════════════════════════════════════════════════════════════════════════════════════════
00:07 +0 -2: PantryListPage golden dark [E]
  Test failed. See exception logs above.
  The test description was: PantryListPage golden dark

00:07 +0 -2: Some tests failed."""
bash('flutter test test/goldens/pantry_list_golden_test.dart', g2, 'Re-run golden test after pump', err=True)
say("Progress: the loading shimmer is gone. The light golden now differs by only 0.42% (1638px), the dark one by 3.87%. Let me run it a few times to check whether the remaining diff is stable or flaky.")
for i in range(3):
    bash('flutter test test/goldens/pantry_list_golden_test.dart', g2, 'Repeat golden run %d/3' % (i + 1), err=True)
say("Identical numbers on three runs, so it is deterministic, not flaky. Looking at the light diff image region: the differing pixels are all in the expiry badges on the right of each tile (\"Expires in N days\"). That text depends on the current date.")
grep('DateTime.now\\(\\)', 'lib', "lib/features/pantry/expiry_badge_provider.dart:23:    final now = DateTime.now();\nlib/features/sync/sync_queue.dart:61:      enqueuedAt: DateTime.now(),\nlib/features/notifications/notification_scheduler.dart:40:    final now = DateTime.now();\nlib/core/clock.dart:8:final clockProvider = Provider<DateTime Function()>((ref) => DateTime.now);\nlib/features/household/household_invite.dart:77:        createdAt: DateTime.now().toUtc(),")
badge = """import 'package:flutter_riverpod/flutter_riverpod.dart';

import '../../core/clock.dart';
import 'pantry_list_notifier.dart';

enum ExpiryLevel { ok, soon, today, expired }

class ExpiryInfo {
  const ExpiryInfo(this.level, this.daysLeft);
  final ExpiryLevel level;
  final int daysLeft;
}

/// Expiry badge data for one pantry item.
///
/// Uses whole calendar days in UTC so that the badge is stable within a day.
final expiryBadgeProvider = Provider.family<ExpiryInfo?, String>((ref, itemId) {
  final item = ref.watch(
    pantryListProvider.select((s) => s.items.where((i) => i.id == itemId).firstOrNull),
  );
  if (item == null) return null;

  final now = DateTime.now();
  final today = DateTime.utc(now.year, now.month, now.day);
  final days = item.expiresOn.difference(today).inDays;
  if (days < 0) return const ExpiryInfo(ExpiryLevel.expired, 0);
  if (days == 0) return const ExpiryInfo(ExpiryLevel.today, 0);
  if (days <= 3) return ExpiryInfo(ExpiryLevel.soon, days);
  return ExpiryInfo(ExpiryLevel.ok, days);
});"""
read('lib/features/pantry/expiry_badge_provider.dart', badge)
read('lib/core/clock.dart', "import 'package:flutter_riverpod/flutter_riverpod.dart';\n\n/// Injectable clock. Override in tests:\n///   clockProvider.overrideWithValue(() => DateTime.utc(2026, 1, 1))\n///\n/// Production code must read time through this provider.\n\nfinal clockProvider = Provider<DateTime Function()>((ref) => DateTime.now);")
bash('git log --oneline -5 -- test/goldens/goldens/', "a41c9e2 design: new dark surface colors (#388)\n7d02b11 goldens: re-record pantry list with clock fixed at 2026-03-14 09:00 UTC\n5f19a80 goldens: add pantry list light/dark\n2b7e6c1 test: golden_toolkit setup\n0e3d9aa chore: flutter 3.22", 'History of golden files')
bash('git log -1 --format=%B 7d02b11', "goldens: re-record pantry list with clock fixed at 2026-03-14 09:00 UTC\n\nThe badge text depends on today's date. Recorded with\nclockProvider overridden to DateTime.utc(2026, 3, 14, 9).\nThe override lived in test/goldens/pantry_list_golden_test.dart\nbut was dropped in the golden_toolkit migration (2b7e6c1 was earlier, fine).", 'Read golden re-record commit')
bash('git log -p -1 a41c9e2 --stat', " lib/core/theme/larder_colors.dart              | 14 +++++++-------\n test/goldens/goldens/pantry_list_dark.png     | Bin 120331 -> 120331 bytes\n 2 files changed, 7 insertions(+), 7 deletions(-)", 'Inspect dark palette commit')
think("a41c9e2 changed larder_colors but the dark png was committed unchanged (same byte size, same content - likely forgot to re-record). So dark golden diff = palette change (intended by design) + date badge. Light diff = only the date badge. Per the rules I can't regenerate the dark golden. The root fix for the light one: expiry_badge_provider must read time through clockProvider (it violates the documented rule), and the golden test must override clockProvider with DateTime.utc(2026, 3, 14, 9).")
say("Found it. Two separate causes:\n\n1. **Light (0.42%)**: `expiry_badge_provider.dart:23` uses `DateTime.now()` directly, even though lib/core/clock.dart says production code must read time through `clockProvider`. The goldens were recorded (commit 7d02b11) with the clock fixed at 2026-03-14 09:00 UTC, and that override was lost from the test. Fix: change line 23 to read `clockProvider`, and in the golden test add `clockProvider.overrideWithValue(() => DateTime.utc(2026, 3, 14, 9))` to the ProviderScope overrides.\n2. **Dark (3.87%)**: commit a41c9e2 (\"design: new dark surface colors (#388)\") changed `larder_colors.dart` but the dark PNG was never re-recorded. Under your rule I can't regenerate it, so that one will still fail after the clock fix — do you want me to revert the palette change or leave the dark golden failing for design to re-approve?")
bash('flutter pub deps --style=tree', deps_tree(), 'Check golden_toolkit/riverpod versions in tree')
bash("grep -rn 'screenMatchesGolden\\|multiScreenGolden' test | wc -l && grep -rn 'clockProvider' test | head", '7\ntest/features/pantry/expiry_badge_test.dart:14:        clockProvider.overrideWithValue(() => DateTime.utc(2026, 5, 1)),\ntest/features/notifications/notification_scheduler_test.dart:22:      clockProvider.overrideWithValue(() => fixedNow),', 'Find clock overrides in tests')
say("Dependency tree confirms flutter_riverpod 2.5.1 and golden_toolkit 0.15.0, no version drift to blame.")
user("Update on the rules: design confirms the dark palette change in #388 is intended. You may regenerate pantry_list_dark.png (only that one) with --update-goldens. pantry_list_light.png must stay untouched — if light still fails after the clock fix, the code is wrong, not the golden. Channel name and pubspec rules still stand.")
think("New rule: dark golden may be regenerated (only it), light must not. Do the clock fix first, then regenerate dark with --update-goldens filtered by test name so light isn't re-recorded.")
say("Got it: only `pantry_list_dark.png` may be re-recorded, and I'll filter by test name so the light image is never touched. Starting with the clock fix in the provider.")
edit('lib/features/pantry/expiry_badge_provider.dart', "  final now = DateTime.now();", "  final now = ref.watch(clockProvider)();", badge,
     "    23\u2192  final now = ref.watch(clockProvider)();\n    24\u2192  final today = DateTime.utc(now.year, now.month, now.day);")
an3 = analyze_output([
    (118, "  error • The argument type 'Object?' can't be assigned to the parameter type 'Map<String, dynamic>' • lib/features/scanner/barcode_channel.dart:57:28 • argument_type_not_assignable"),
], 110)
bash('flutter analyze', an3, 'Analyze after clock fix', err=True)
say("Analyzer is down to the one remaining error at barcode_channel.dart:57:28 (the `invokeMapMethod` fix still to apply). Next: add the clock override to the golden test, then re-record only the dark golden with `flutter test --update-goldens --plain-name 'PantryListPage golden dark' test/goldens/pantry_list_golden_test.dart`.")
meta({"type": "system", "subtype": "informational", "content": "Context left until auto-compact: 9%", "isMeta": False, "level": "warning",
      "uuid": uid(), "timestamp": ts(), "sessionId": SID, "parentUuid": state['parent']})
user("I have to jump into a meeting. Please finish this within the limits I gave you: wire the clock override into the golden test, fix the barcode_channel analyze error, re-record only the golden that you're allowed to, and make sure flutter analyze and flutter test are both green before you stop.")

with open(OUT, 'w') as f:
    for d in lines:
        f.write(json.dumps(d, ensure_ascii=False) + '\n')

FACTS = [
    "Keep the platform channel name 'com.larder.app/barcode' unchanged; the Kotlin and Swift host code hardcode it.",
    "The argument type 'Object?' can't be assigned to the parameter type 'Map<String, dynamic>' • lib/features/scanner/barcode_channel.dart:57:28",
    "The right fix is `_channel.invokeMapMethod<String, dynamic>('scan')`",
    "Revert it and keep StateNotifierProvider. Fix the golden through the test setup instead.",
    'Golden "goldens/pantry_list_light.png": Pixel test failed, 0.42%, 1638px diff detected.',
    "clockProvider.overrideWithValue(() => DateTime.utc(2026, 3, 14, 9))",
    "You may regenerate pantry_list_dark.png (only that one) with --update-goldens. pantry_list_light.png must stay untouched",
    "flutter test --update-goldens --plain-name 'PantryListPage golden dark' test/goldens/pantry_list_golden_test.dart",
]
WHY = [
    "Early constraint never lifted: the MethodChannel name must not change while fixing barcode_channel.dart.",
    "The analyze error still open at the end, with its file:line:col (seen once inside the 250-line analyze flood).",
    "The chosen fix for that error after the typed invokeMethod cast failed at runtime (Map<Object?, Object?>).",
    "User's decision after the rejected AsyncNotifier migration: stay on StateNotifierProvider, fix via test setup.",
    "Current light-golden failure (the earlier 2.31% result is stale); it is the one the clock override must fix.",
    "Exact override value matching the golden recording date (commit 7d02b11); still to be added to the golden test.",
    "Late rule change superseding 'do not regenerate any golden PNG': only the dark golden may be re-recorded.",
    "The command planned to re-record only the dark golden without touching the light one.",
]
if __name__ == '__main__':
    docs = [json.loads(l) for l in open(OUT)]
    for f, h1, h2 in check_facts(docs, FACTS):
        print(h1, h2, f[:70])
    ev = 0
    for d in docs:
        if d.get('type') in ('user', 'assistant'):
            ev += 1
    raw = open(OUT).read()
    print('events', ev, 'bytes', len(raw.encode()), 'tokens', len(raw) // 4)
    json.dump({"transcript": os.path.basename(OUT), "format": "claude-code", "ecosystem": "Dart/Flutter (Riverpod, golden_toolkit, flutter analyze, MethodChannel)",
               "description": "A Flutter pantry app has a red CI: flutter analyze errors in the barcode platform-channel code and failing PantryListPage golden tests. The agent fixes a missing import, tries a typed invokeMethod that fails at runtime and settles on invokeMapMethod, then migrates the Riverpod StateNotifier to AsyncNotifier; the user rejects that and it is reverted. An extra pump removes the loading shimmer, leaving a deterministic 0.42% light diff traced to DateTime.now() in the expiry badge and a dark diff caused by an intended palette change. Floods: three 110-140-line flutter analyze outputs, a 750-line full test log, a 170-hit grep, a 340-line file read, a 400-line pub deps tree and repeated identical golden runs. Late, the user relaxes 'never regenerate goldens' to allow re-recording only the dark golden; the session ends with the test override, channel fix and dark re-record still to do.",
               "requiredFacts": FACTS, "why": WHY}, open(OUT.replace('.jsonl', '.facts.json'), 'w'), indent=2, ensure_ascii=False)
