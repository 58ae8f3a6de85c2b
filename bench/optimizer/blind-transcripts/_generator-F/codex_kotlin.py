#!/usr/bin/env python3
"""Generate a Codex CLI rollout JSONL: Kotlin Android app, Room migration, unit + instrumented tests, Detekt."""
import json, random, datetime, os, sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "/work/blindset-F"
NAME = "codex-kotlin-android-room-migration-5-6.jsonl"
rng = random.Random(777)
CWD = "/home/dev/fieldnotes"
t = [datetime.datetime(2026, 11, 24, 9, 14, 3)]
lines = []
tok = [12000]
PKG = "com/example/fieldnotes"


def ts():
    t[0] += datetime.timedelta(seconds=rng.randint(2, 35), milliseconds=rng.randint(0, 999))
    return t[0].strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t[0].microsecond // 1000)


def emit(typ, payload):
    lines.append({"timestamp": ts(), "type": typ, "payload": payload})


def user(text):
    emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
    emit("event_msg", {"type": "user_message", "message": text, "images": []})


def reason(title, body=None):
    summ = [{"type": "summary_text", "text": "**%s**" % title + (("\n\n" + body) if body else "")}]
    emit("response_item", {"type": "reasoning", "summary": summ, "content": None, "encrypted_content": "gAAAAABp" + "%x" % rng.getrandbits(160)})


def say(text, event=False):
    if event:
        emit("event_msg", {"type": "agent_message", "message": text})
    emit("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})


def token_count():
    tok[0] += rng.randint(1500, 9000)
    emit("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": tok[0], "cached_input_tokens": int(tok[0] * 0.85),
                                                                            "output_tokens": tok[0] // 30, "reasoning_output_tokens": tok[0] // 60, "total_tokens": tok[0] + tok[0] // 30}}, "rate_limits": None})


ncall = [0]


def cid():
    ncall[0] += 1
    return "call_%s%02d" % ("".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10)), ncall[0])


def sh(cmd, out, code=0, secs=None, style=None):
    """style 'json' -> shell with argv + JSON output; 'text' -> shell_command + Exit code text."""
    c = cid()
    if secs is None:
        secs = round(rng.random() * 3, 1)
    if style is None:
        style = "json" if ncall[0] % 2 else "text"
    if style == "json":
        emit("response_item", {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", cmd], "workdir": CWD, "timeout_ms": 600000}), "call_id": c})
        emit("response_item", {"type": "function_call_output", "call_id": c, "output": json.dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": secs}})})
    else:
        emit("response_item", {"type": "function_call", "name": "shell_command", "arguments": json.dumps({"command": cmd, "workdir": CWD}), "call_id": c})
        emit("response_item", {"type": "function_call_output", "call_id": c, "output": "Exit code: %d\nWall time: %s seconds\nOutput:\n%s" % (code, secs, out)})
    if rng.random() < 0.35:
        token_count()


def patch(body, files, ok=True, err=None):
    c = cid()
    emit("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": c, "name": "apply_patch", "input": "*** Begin Patch\n" + body + "\n*** End Patch"})
    if ok:
        msg = "Success. Updated the following files:\n" + "".join("M %s\n" % f for f in files)
        emit("response_item", {"type": "custom_tool_call_output", "call_id": c, "output": json.dumps({"output": msg, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})})
        emit("event_msg", {"type": "patch_apply_end", "call_id": c, "stdout": msg, "stderr": "", "success": True})
    else:
        emit("response_item", {"type": "custom_tool_call_output", "call_id": c, "output": json.dumps({"output": err, "metadata": {"exit_code": 1, "duration_seconds": 0.0}})})
        emit("event_msg", {"type": "patch_apply_end", "call_id": c, "stdout": "", "stderr": err, "success": False})


# ------------------------------------------------------------------ content
MODULES = [":app", ":core:model", ":core:data", ":core:ui", ":feature:notes", ":feature:map", ":feature:settings", ":sync"]
TASKS = ["preBuild", "preDebugBuild", "mergeDebugNativeDebugMetadata", "checkKotlinGradlePluginConfigurationErrors", "generateDebugBuildConfig",
         "checkDebugAarMetadata", "generateDebugResValues", "mapDebugSourceSetPaths", "generateDebugResources", "mergeDebugResources",
         "packageDebugResources", "parseDebugLocalResources", "createDebugCompatibleScreenManifests", "extractDeepLinksDebug",
         "processDebugMainManifest", "processDebugManifest", "processDebugManifestForPackage", "processDebugResources",
         "kspDebugKotlin", "compileDebugKotlin", "javaPreCompileDebug", "compileDebugJavaWithJavac", "mergeDebugShaders",
         "compileDebugShaders", "generateDebugAssets", "mergeDebugAssets", "compressDebugAssets", "desugarDebugFileDependencies",
         "checkDebugDuplicateClasses", "mergeExtDexDebug", "mergeLibDexDebug", "dexBuilderDebug", "mergeProjectDexDebug",
         "mergeDebugJniLibFolders", "mergeDebugNativeLibs", "stripDebugDebugSymbols", "validateSigningDebug", "writeDebugAppMetadata",
         "writeDebugSigningConfigVersions", "packageDebug", "createDebugApkListingFileRedirect", "assembleDebug"]
TEST_TASKS = ["preDebugAndroidTestBuild", "generateDebugAndroidTestResValues", "processDebugAndroidTestManifest", "kspDebugAndroidTestKotlin",
              "compileDebugAndroidTestKotlin", "mergeDebugAndroidTestAssets", "dexBuilderDebugAndroidTest", "packageDebugAndroidTest",
              "connectedDebugAndroidTest"]


def gradle_info_log(fail_text, target_lines=1500):
    out = ["Initialized native services in: /home/dev/.gradle/native", "Initialized jansi services in: /home/dev/.gradle/native",
           "Received JVM installation metadata from '/usr/lib/jvm/java-17-openjdk-amd64': {JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64, JAVA_VERSION=17.0.12}",
           "The client will now receive all logging from the daemon (pid: 48213). The daemon log file: /home/dev/.gradle/daemon/8.9/daemon-48213.out.log",
           "Starting 3rd build in daemon [uptime: 14 mins 2.118 secs, performance: 98%, GC rate: 0.00/s, heap usage: 21% of 4 GiB]",
           "Using 16 worker leases.", "Now considering [/home/dev/fieldnotes] as hierarchies to watch", "Watching the file system is configured to be enabled if available",
           "File system watching is active", "Starting Build", "Settings evaluated using settings file '/home/dev/fieldnotes/settings.gradle.kts'.",
           "Projects loaded. Root project using build file '/home/dev/fieldnotes/build.gradle.kts'.",
           "Included projects: [root project 'fieldnotes', project ':app', project ':core', project ':core:data', project ':core:model', project ':core:ui', project ':feature', project ':feature:map', project ':feature:notes', project ':feature:settings', project ':sync']"]
    for m in MODULES:
        out.append("")
        out.append("> Configure project %s" % m)
        out.append("Evaluating project '%s' using build file '/home/dev/fieldnotes/%s/build.gradle.kts'." % (m, m[1:].replace(":", "/")))
        for _ in range(rng.randint(3, 8)):
            out.append("Resolved plugin [id: '%s', version: '%s']" % rng.choice([("com.android.library", "8.7.2"), ("org.jetbrains.kotlin.android", "2.0.21"), ("com.google.devtools.ksp", "2.0.21-1.0.27"), ("io.gitlab.arturbosch.detekt", "1.23.7"), ("org.jetbrains.kotlin.plugin.compose", "2.0.21")]))
    out.append("All projects evaluated.")
    out.append("Task name matched 'connectedDebugAndroidTest'")
    out.append("Selected primary task 'connectedDebugAndroidTest' from project :app")
    while len(out) < target_lines - 60:
        m = rng.choice(MODULES)
        tk = rng.choice(TASKS + TEST_TASKS[:-1])
        out.append("> Task %s:%s %s" % (m, tk, rng.choice(["UP-TO-DATE", "UP-TO-DATE", "UP-TO-DATE", "FROM-CACHE", "", "NO-SOURCE"])))
        r = rng.random()
        if r < 0.45:
            out.append("Skipping task '%s:%s' as it is up-to-date." % (m, tk))
        elif r < 0.7:
            out.append("Caching disabled for task '%s:%s' because:" % (m, tk))
            out.append("  Build cache is disabled")
            out.append("Task '%s:%s' is not up-to-date because:" % (m, tk))
            out.append("  Input property 'source' file /home/dev/fieldnotes/%s/src/main/java/%s/%s.kt has changed." % (m[1:].replace(":", "/"), PKG, rng.choice(["NoteDao", "NoteEntity", "AppDatabase", "Migrations", "NoteRepository", "MapViewModel", "SettingsScreen", "SyncWorker"])))
        elif r < 0.85:
            out.append("Resolve mutations for %s:%s (Thread[#%d,Execution worker Thread %d,5,main]) started." % (m, tk, rng.randint(80, 140), rng.randint(2, 15)))
            out.append("%s:%s (Thread[#%d,Execution worker Thread %d,5,main]) completed. Took %.3f secs." % (m, tk, rng.randint(80, 140), rng.randint(2, 15), rng.random() * 4))
        else:
            out.append("w: file:///home/dev/fieldnotes/%s/src/main/java/%s/%s.kt:%d:%d '%s' is deprecated. %s" % (
                m[1:].replace(":", "/"), PKG, rng.choice(["MapScreen", "SettingsScreen", "SyncWorker", "LocationClient"]), rng.randint(10, 300), rng.randint(5, 60),
                rng.choice(["fun getParcelableExtra(p0: String!): T?", "val defaultDisplay: Display!", "fun onBackPressed(): Unit", "fun setSystemUiVisibility(p0: Int): Unit"]),
                rng.choice(["Deprecated in Java", "Use OnBackPressedDispatcher", "Use WindowInsetsController"])))
    out.append("> Task :app:connectedDebugAndroidTest")
    out.append("Starting 3 tests on Pixel_7_API_34(AVD) - 14")
    out.extend(fail_text)
    out.append("Finished 3 tests on Pixel_7_API_34(AVD) - 14")
    out.append("")
    out.append("> Task :app:connectedDebugAndroidTest FAILED")
    out.append("")
    out.append("FAILURE: Build failed with an exception.")
    out.append("")
    out.append("* What went wrong:")
    out.append("Execution failed for task ':app:connectedDebugAndroidTest'.")
    out.append("> There were failing tests. See the report at: file:///home/dev/fieldnotes/app/build/reports/androidTests/connected/debug/index.html")
    out.append("")
    out.append("BUILD FAILED in 2m 41s")
    out.append("%d actionable tasks: %d executed, %d up-to-date" % (312, 9, 303))
    return "\n".join(out)


def mig_fail(table, entity, expected, found):
    return ["",
            "com.example.fieldnotes.data.MigrationTest > migrate4To5_preservesNotes[Pixel_7_API_34(AVD) - 14] \u001b[31mFAILED \u001b[0m",
            "\tjava.lang.IllegalStateException: Migration didn't properly handle: %s(%s)." % (table, entity),
            "\t Expected:", "\tTableInfo {", expected, "\t}", "\t Found:", "\tTableInfo {", found, "\t}",
            "\tat androidx.room.testing.MigrationTestHelper.runMigrationsAndValidate(MigrationTestHelper.kt:298)",
            "\tat com.example.fieldnotes.data.MigrationTest.migrate4To5_preservesNotes(MigrationTest.kt:58)",
            ""]


NOTES_EXPECTED_PINNED = "\t    name = 'notes',\n\t    columns = {\n\t        Column {\n\t           name = 'isPinned',\n\t           type = 'INTEGER',\n\t           affinity = '3',\n\t           notNull = 'true',\n\t           primaryKeyPosition = '0',\n\t           defaultValue = '0'\n\t        },\n\t        Column {\n\t           name = 'body',\n\t           type = 'TEXT',\n\t           affinity = '2',\n\t           notNull = 'true',\n\t           primaryKeyPosition = '0',\n\t           defaultValue = 'undefined'\n\t        }\n\t    },\n\t    foreignKeys = { }\n\t    indices = { }"
NOTES_FOUND_PINNED = NOTES_EXPECTED_PINNED.replace("defaultValue = '0'", "defaultValue = 'undefined'", 1)
TAGS_EXPECTED = "\t    name = 'note_tags',\n\t    columns = {\n\t        Column {\n\t           name = 'noteId',\n\t           type = 'INTEGER',\n\t           affinity = '3',\n\t           notNull = 'true',\n\t           primaryKeyPosition = '1',\n\t           defaultValue = 'undefined'\n\t        },\n\t        Column {\n\t           name = 'tag',\n\t           type = 'TEXT',\n\t           affinity = '2',\n\t           notNull = 'true',\n\t           primaryKeyPosition = '2',\n\t           defaultValue = 'undefined'\n\t        }\n\t    },\n\t    foreignKeys = {\n\t        ForeignKey {\n\t            referenceTable = 'notes',\n\t            onDelete = 'CASCADE',\n\t            onUpdate = 'NO ACTION',\n\t            columnNames = {noteId},\n\t            referenceColumnNames = {id}\n\t        }\n\t    }\n\t    indices = {\n\t        Index {\n\t           name = 'index_note_tags_noteId',\n\t           unique = 'false',\n\t           columns = {noteId},\n\t           orders = {ASC}\n\t        }\n\t    }"
TAGS_FOUND = TAGS_EXPECTED.split("\t    indices = {")[0] + "\t    indices = { }"

MIGRATIONS_MAIN = '''package com.example.fieldnotes.data

import androidx.room.migration.Migration
import androidx.sqlite.db.SupportSQLiteDatabase

val MIGRATION_1_2 = object : Migration(1, 2) {
    override fun migrate(db: SupportSQLiteDatabase) {
        db.execSQL("ALTER TABLE notes ADD COLUMN latitude REAL")
        db.execSQL("ALTER TABLE notes ADD COLUMN longitude REAL")
    }
}

val MIGRATION_2_3 = object : Migration(2, 3) {
    override fun migrate(db: SupportSQLiteDatabase) {
        db.execSQL("ALTER TABLE notes ADD COLUMN labels TEXT NOT NULL DEFAULT ''")
    }
}

val MIGRATION_3_4 = object : Migration(3, 4) {
    override fun migrate(db: SupportSQLiteDatabase) {
        db.execSQL("CREATE TABLE IF NOT EXISTS photos (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, noteId INTEGER NOT NULL, uri TEXT NOT NULL)")
    }
}

/**
 * 4 -> 5: pinned notes and a real tag table instead of the comma separated `labels` column.
 * Shipped in 2.3.0-beta1.
 */
val MIGRATION_4_5 = object : Migration(4, 5) {
    override fun migrate(db: SupportSQLiteDatabase) {
        db.execSQL(
            "CREATE TABLE notes_new (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, " +
                "createdAt INTEGER NOT NULL, latitude REAL, longitude REAL, labels TEXT NOT NULL DEFAULT '', isPinned INTEGER NOT NULL)"
        )
        db.execSQL(
            "INSERT INTO notes_new (id, title, body, createdAt, latitude, longitude, labels, isPinned) " +
                "SELECT id, title, body, createdAt, latitude, longitude, labels, 0 FROM notes"
        )
        db.execSQL("DROP TABLE notes")
        db.execSQL("ALTER TABLE notes_new RENAME TO notes")
        db.execSQL(
            "CREATE TABLE IF NOT EXISTS note_tags (noteId INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY(noteId, tag), " +
                "FOREIGN KEY(noteId) REFERENCES notes(id) ON UPDATE NO ACTION ON DELETE CASCADE)"
        )
        db.execSQL(
            "INSERT INTO note_tags (noteId, tag) SELECT id, labels FROM notes WHERE labels != ''"
        )
    }
}

val ALL_MIGRATIONS = arrayOf(MIGRATION_1_2, MIGRATION_2_3, MIGRATION_3_4, MIGRATION_4_5)
'''

APPDB = '''package com.example.fieldnotes.data

import android.content.Context
import androidx.room.Database
import androidx.room.Room
import androidx.room.RoomDatabase
import androidx.room.TypeConverters

@Database(
    entities = [NoteEntity::class, PhotoEntity::class, NoteTagEntity::class],
    version = 5,
    exportSchema = true,
)
@TypeConverters(Converters::class)
abstract class AppDatabase : RoomDatabase() {
    abstract fun noteDao(): NoteDao
    abstract fun photoDao(): PhotoDao

    companion object {
        const val NAME = "fieldnotes.db"

        fun build(context: Context): AppDatabase =
            Room.databaseBuilder(context, AppDatabase::class.java, NAME)
                .addMigrations(*ALL_MIGRATIONS)
                .build()
    }
}
'''

ENTITIES = '''package com.example.fieldnotes.data

import androidx.room.ColumnInfo
import androidx.room.Entity
import androidx.room.ForeignKey
import androidx.room.Index
import androidx.room.PrimaryKey

@Entity(tableName = "notes")
data class NoteEntity(
    @PrimaryKey(autoGenerate = true) val id: Long = 0,
    val title: String,
    val body: String,
    val createdAt: Long,
    val latitude: Double?,
    val longitude: Double?,
    @ColumnInfo(defaultValue = "") val labels: String = "",
    @ColumnInfo(defaultValue = "0") val isPinned: Boolean = false,
)

@Entity(
    tableName = "note_tags",
    primaryKeys = ["noteId", "tag"],
    foreignKeys = [
        ForeignKey(entity = NoteEntity::class, parentColumns = ["id"], childColumns = ["noteId"], onDelete = ForeignKey.CASCADE),
    ],
    indices = [Index("noteId")],
)
data class NoteTagEntity(
    val noteId: Long,
    val tag: String,
)
'''

MIGRATION_TEST = '''package com.example.fieldnotes.data

import androidx.room.testing.MigrationTestHelper
import androidx.test.ext.junit.runners.AndroidJUnit4
import androidx.test.platform.app.InstrumentationRegistry
import org.junit.Assert.assertEquals
import org.junit.Rule
import org.junit.Test
import org.junit.runner.RunWith

@RunWith(AndroidJUnit4::class)
class MigrationTest {
    private val dbName = "migration-test"

    @get:Rule
    val helper = MigrationTestHelper(
        InstrumentationRegistry.getInstrumentation(),
        AppDatabase::class.java,
    )

    @Test
    fun migrate1To4_keepsCoordinates() {
        helper.createDatabase(dbName, 1).apply {
            execSQL("INSERT INTO notes (id, title, body, createdAt) VALUES (1, 'a', 'b', 0)")
            close()
        }
        helper.runMigrationsAndValidate(dbName, 4, true, MIGRATION_1_2, MIGRATION_2_3, MIGRATION_3_4)
    }

    @Test
    fun allMigrations_fromEveryVersion() {
        for (v in 1..4) {
            helper.createDatabase("$dbName-$v", v).close()
            helper.runMigrationsAndValidate("$dbName-$v", 5, true, *ALL_MIGRATIONS)
        }
    }

    @Test
    fun migrate4To5_preservesNotes() {
        helper.createDatabase(dbName, 4).apply {
            execSQL("INSERT INTO notes (id, title, body, createdAt, labels) VALUES (1, 'Heron', 'grey heron at the weir', 1700000000000, 'birds, river')")
            execSQL("INSERT INTO notes (id, title, body, createdAt, labels) VALUES (2, 'Oak', 'veteran oak, 6m girth', 1700000100000, '')")
            close()
        }
        val db = helper.runMigrationsAndValidate(dbName, 5, true, MIGRATION_4_5)
        db.query("SELECT tag FROM note_tags WHERE noteId = 1 ORDER BY tag").use { c ->
            val tags = generateSequence { if (c.moveToNext()) c.getString(0) else null }.toList()
            assertEquals(listOf("birds", "river"), tags)
        }
    }
}
'''


def deps_tree():
    out = ["", "> Task :app:dependencies", "", "------------------------------------------------------------", "Project ':app'", "------------------------------------------------------------", "",
           "debugRuntimeClasspath - Runtime classpath of '/debug'."]
    libs = ["androidx.room:room-runtime:2.6.1", "androidx.room:room-ktx:2.6.1", "androidx.room:room-common:2.6.1", "androidx.sqlite:sqlite:2.4.0",
            "androidx.sqlite:sqlite-framework:2.4.0", "androidx.core:core-ktx:1.13.1", "androidx.lifecycle:lifecycle-runtime-ktx:2.8.6",
            "androidx.lifecycle:lifecycle-viewmodel-compose:2.8.6", "androidx.activity:activity-compose:1.9.2", "androidx.compose:compose-bom:2024.10.00",
            "androidx.compose.ui:ui:1.7.4", "androidx.compose.ui:ui-graphics:1.7.4", "androidx.compose.ui:ui-tooling-preview:1.7.4",
            "androidx.compose.material3:material3:1.3.0", "androidx.navigation:navigation-compose:2.8.3", "androidx.work:work-runtime-ktx:2.9.1",
            "com.google.android.gms:play-services-location:21.3.0", "org.osmdroid:osmdroid-android:6.1.20", "org.jetbrains.kotlinx:kotlinx-coroutines-android:1.9.0",
            "org.jetbrains.kotlinx:kotlinx-serialization-json:1.7.3", "com.squareup.okhttp3:okhttp:4.12.0", "com.squareup.retrofit2:retrofit:2.11.0",
            "io.coil-kt:coil-compose:2.7.0", "com.jakewharton.timber:timber:5.0.1", "androidx.datastore:datastore-preferences:1.1.1"]
    trans = ["androidx.annotation:annotation:1.8.1", "androidx.arch.core:core-common:2.2.0", "androidx.arch.core:core-runtime:2.2.0",
             "androidx.collection:collection:1.4.4", "androidx.concurrent:concurrent-futures:1.1.0", "androidx.startup:startup-runtime:1.1.1",
             "androidx.tracing:tracing:1.2.0", "androidx.profileinstaller:profileinstaller:1.4.1", "com.google.guava:listenablefuture:1.0",
             "org.jetbrains.kotlin:kotlin-stdlib:2.0.21", "org.jetbrains:annotations:23.0.0", "androidx.versionedparcelable:versionedparcelable:1.1.1",
             "androidx.interpolator:interpolator:1.0.0", "androidx.savedstate:savedstate:1.2.1", "androidx.compose.runtime:runtime:1.7.4",
             "androidx.compose.foundation:foundation:1.7.4", "androidx.compose.animation:animation:1.7.4", "com.squareup.okio:okio:3.9.0",
             "org.jetbrains.kotlinx:kotlinx-coroutines-core:1.9.0", "androidx.emoji2:emoji2:1.3.0", "androidx.customview:customview-poolingcontainer:1.0.0"]
    for i, l in enumerate(libs):
        pre = "+--- " if i < len(libs) - 1 else "\\--- "
        out.append(pre + l)
        for j in range(rng.randint(3, 9)):
            t2 = rng.choice(trans)
            if rng.random() < 0.3:
                t2 = t2 + " -> " + t2.rsplit(":", 1)[1].replace("1.", "1.1", 1) if False else t2 + " (*)"
            out.append("|    " + ("+--- " if j else "+--- ") + t2)
            for k in range(rng.randint(0, 4)):
                out.append("|    |    +--- " + rng.choice(trans) + " (*)")
    out += ["", "(c) - A dependency constraint, not a dependency.", "(*) - Indicates repeated occurrences of a transitive dependency subtree. Gradle expands transitive dependency subtrees only once per project; repeated occurrences only display the root of the subtree, followed by this annotation.", "",
            "A web-based, searchable dependency report is available by adding the --scan option.", "", "BUILD SUCCESSFUL in 3s", "1 actionable task: 1 executed"]
    return "\n".join(out)


def detekt_out(extra):
    rules = [("MagicNumber", "This expression contains a magic number. Consider defining it to a well named constant."),
             ("LongMethod", "The function Content is too long (%d). The maximum length is 60." % rng.randint(61, 140)),
             ("MaxLineLength", "Line detected, which is longer than the defined maximum line length in the code base."),
             ("WildcardImport", "kotlinx.coroutines.flow.* is a wildcard import. Replace it with fully qualified imports."),
             ("FunctionNaming", "Function names should match the pattern: [a-z][a-zA-Z0-9]*"),
             ("ComplexCondition", "This condition is too complex (5). Defined complexity threshold for conditions is set to '4'"),
             ("TooManyFunctions", "File has 14 functions. The maximum is 11."), ("ReturnCount", "Function has 3 return statements which exceeds the limit of 2."),
             ("UnusedPrivateMember", "Private function `preview` is unused."), ("SwallowedException", "The caught exception is swallowed. The original exception could be lost.")]
    out = []
    files = ["feature/map/src/main/java/%s/map/MapScreen.kt" % PKG, "feature/map/src/main/java/%s/map/MapViewModel.kt" % PKG,
             "feature/settings/src/main/java/%s/settings/SettingsScreen.kt" % PKG, "sync/src/main/java/%s/sync/SyncWorker.kt" % PKG,
             "core/ui/src/main/java/%s/ui/theme/Theme.kt" % PKG, "feature/notes/src/main/java/%s/notes/NoteListScreen.kt" % PKG,
             "feature/notes/src/main/java/%s/notes/NoteEditorScreen.kt" % PKG, "core/data/src/main/java/%s/data/remote/SyncApi.kt" % PKG]
    for f in files:
        for _ in range(rng.randint(8, 20)):
            r, m = rng.choice(rules)
            out.append("/home/dev/fieldnotes/%s:%d:%d: %s [%s]" % (f, rng.randint(5, 400), rng.randint(1, 80), m, r))
    out[len(out) // 2:len(out) // 2] = extra
    return out


BUILD_GRADLE = """plugins {
    alias(libs.plugins.android.application)
    alias(libs.plugins.kotlin.android)
    alias(libs.plugins.kotlin.compose)
    alias(libs.plugins.ksp)
    alias(libs.plugins.detekt)
}

android {
    namespace = "com.example.fieldnotes"
    compileSdk = 35

    defaultConfig {
        applicationId = "com.example.fieldnotes"
        minSdk = 26
        targetSdk = 35
        versionCode = 2300
        versionName = "2.3.0"
        testInstrumentationRunner = "androidx.test.runner.AndroidJUnitRunner"
    }

    buildTypes {
        debug { applicationIdSuffix = ".debug" }
        release {
            isMinifyEnabled = true
            proguardFiles(getDefaultProguardFile("proguard-android-optimize.txt"), "proguard-rules.pro")
        }
    }

    sourceSets {
        // Exported Room schemas are needed by MigrationTestHelper on device.
        getByName("androidTest").assets.srcDir("$projectDir/schemas")
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    kotlinOptions { jvmTarget = "17" }
    buildFeatures { compose = true }
    testOptions { unitTests.isIncludeAndroidResources = true }
}

ksp {
    arg("room.schemaLocation", "$projectDir/schemas")
    arg("room.generateKotlin", "true")
}

detekt {
    config.setFrom(rootProject.file("config/detekt/detekt.yml"))
    baseline = rootProject.file("config/detekt/baseline.xml")
    buildUponDefaultConfig = true
}

dependencies {
    implementation(project(":core:model"))
    implementation(project(":core:data"))
    implementation(project(":core:ui"))
    implementation(project(":feature:notes"))
    implementation(project(":feature:map"))
    implementation(project(":feature:settings"))
    implementation(project(":sync"))
    implementation(libs.room.runtime)
    implementation(libs.room.ktx)
    ksp(libs.room.compiler)
    testImplementation(libs.junit)
    testImplementation(libs.robolectric)
    testImplementation(libs.kotlinx.coroutines.test)
    androidTestImplementation(libs.room.testing)
    androidTestImplementation(libs.androidx.test.ext.junit)
    androidTestImplementation(libs.androidx.test.runner)
}"""

NOTE_DAO = """package com.example.fieldnotes.data

import androidx.room.Dao
import androidx.room.Insert
import androidx.room.OnConflictStrategy
import androidx.room.Query
import androidx.room.Upsert
import kotlinx.coroutines.flow.Flow

@Dao
interface NoteDao {
    @Query("SELECT * FROM notes ORDER BY isPinned DESC, createdAt DESC")
    fun observeAll(): Flow<List<NoteEntity>>

    @Query("SELECT * FROM notes WHERE id = :id")
    suspend fun get(id: Long): NoteEntity?

    @Upsert
    suspend fun upsert(note: NoteEntity): Long

    @Query("DELETE FROM notes WHERE id = :id")
    suspend fun delete(id: Long)

    @Query("DELETE FROM note_tags WHERE noteId = :noteId")
    suspend fun deleteTags(noteId: Long)

    @Insert(onConflict = OnConflictStrategy.IGNORE)
    suspend fun insertTag(tag: NoteTagEntity)

    @Query(
        "SELECT notes.* FROM notes JOIN note_tags ON note_tags.noteId = notes.id " +
            "WHERE note_tags.tag = :tag ORDER BY notes.createdAt ASC"
    )
    fun observeTagged(tag: String): Flow<List<NoteEntity>>

    @Query("UPDATE notes SET isPinned = :pinned WHERE id = :id")
    suspend fun setPinned(id: Long, pinned: Boolean)
}"""

# ------------------------------------------------------------------ story
emit("session_meta", {"id": "019ab7d2-4c1e-7a05-9f3b-2e6d8c1a5f47", "timestamp": "2026-11-24T09:14:00.000Z", "cwd": CWD, "originator": "codex_cli_rs",
                      "cli_version": "0.58.0", "instructions": None, "source": "cli", "model_provider": "openai",
                      "git": {"commit_hash": "b7e21c4", "branch": "fix/room-migration", "repository_url": "git@github.com:fieldnotes-app/fieldnotes-android.git"}})
emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n  <cwd>%s</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>" % CWD}]})
emit("turn_context", {"cwd": CWD, "approval_policy": "on-request", "sandbox_policy": {"mode": "workspace-write", "network_access": False}, "model": "gpt-5.1-codex", "effort": "medium", "summary": "auto"})
user("The instrumented MigrationTest is failing since Lena's tags change (DB 4 -> 5). Please fix MIGRATION_4_5 so `migrate4To5_preservesNotes` passes.\n\n"
     "Constraints:\n"
     "- Never use fallbackToDestructiveMigration — people have years of field notes on their phones.\n"
     "- Keep the database at version 5; 2.3.0 hasn't shipped, so fixing MIGRATION_4_5 in place is fine.\n"
     "- Don't edit the exported schemas for old versions (app/schemas/.../1.json to 4.json).\n"
     "- `./gradlew detekt` gates CI, so it must pass.\n\n"
     "The emulator Pixel_7_API_34 is already running.")
reason("Reproducing the migration failure", "Run the MigrationTest class on the emulator, then read Migrations.kt, the entities and the exported schema 5.json.")
sh("git status --short && git log --oneline -5", "b7e21c4 (HEAD -> fix/room-migration, origin/main) notes: tags table + pinned notes (DB v5)\n0f3d9a8 map: cluster markers above zoom 14\n77c1e20 sync: retry with backoff on 503\n3aa0b14 settings: export notes as GPX\ne19c5f2 deps: room 2.6.1, ksp 2.0.21-1.0.27", style="json")
sh("adb devices -l", "List of devices attached\nemulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa transport_id:1", style="text")
sh("adb -s emulator-5554 shell getprop ro.build.version.sdk", "34", style="text")
sh("ls app/schemas/com.example.fieldnotes.data.AppDatabase/ && git log --oneline -3 -- app/schemas", "1.json\n2.json\n3.json\n4.json\n5.json\nb7e21c4 notes: tags table + pinned notes (DB v5)\n3f08a17 photos table (DB v4)\n91bb2e0 labels column (DB v3)", style="json")
sh("sed -n 1,80p app/build.gradle.kts", BUILD_GRADLE, style="text")
sh("grep -n 'room\\|ksp\\|detekt' gradle/libs.versions.toml", 'room = "2.6.1"\nksp = "2.0.21-1.0.27"\ndetekt = "1.23.7"\nroom-runtime = { module = "androidx.room:room-runtime", version.ref = "room" }\nroom-ktx = { module = "androidx.room:room-ktx", version.ref = "room" }\nroom-compiler = { module = "androidx.room:room-compiler", version.ref = "room" }\nroom-testing = { module = "androidx.room:room-testing", version.ref = "room" }\nksp = { id = "com.google.devtools.ksp", version.ref = "ksp" }\ndetekt = { id = "io.gitlab.arturbosch.detekt", version.ref = "detekt" }', style="json")
reason("Running the migration test class", "Use --info so the Room validation message is printed in full.")
sh("./gradlew :app:connectedDebugAndroidTest -Pandroid.testInstrumentationRunnerArguments.class=com.example.fieldnotes.data.MigrationTest --info --console=plain",
   gradle_info_log(["", "com.example.fieldnotes.data.MigrationTest > migrate1To4_keepsCoordinates[Pixel_7_API_34(AVD) - 14] SUCCESS", ""] +
                   mig_fail("notes", "com.example.fieldnotes.data.NoteEntity", NOTES_EXPECTED_PINNED, NOTES_FOUND_PINNED) +
                   ["com.example.fieldnotes.data.MigrationTest > allMigrations_fromEveryVersion[Pixel_7_API_34(AVD) - 14] \u001b[31mFAILED \u001b[0m",
                    "\tjava.lang.IllegalStateException: Migration didn't properly handle: notes(com.example.fieldnotes.data.NoteEntity).",
                    "\tat com.example.fieldnotes.data.MigrationTest.allMigrations_fromEveryVersion(MigrationTest.kt:40)"]), code=1, secs=171.4, style="json")
reason("Reading the failure", "Room validation: notes.isPinned expected defaultValue '0' (entity has @ColumnInfo(defaultValue = \"0\")), found 'undefined' because the CREATE TABLE notes_new in MIGRATION_4_5 declares isPinned without DEFAULT.")
say("The first failure is in `notes`: the entity declares `isPinned` with `@ColumnInfo(defaultValue = \"0\")`, but MIGRATION_4_5 recreates the table with `isPinned INTEGER NOT NULL` and no default, so Room sees `defaultValue = 'undefined'`. Let me read the migration, entities and schema.")
sh("cat app/src/main/java/com/example/fieldnotes/data/Migrations.kt", MIGRATIONS_MAIN, style="json")
sh("cat app/src/main/java/com/example/fieldnotes/data/Entities.kt", ENTITIES, style="text")
sh("cat app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt", APPDB, style="json")
sh("cat app/src/androidTest/java/com/example/fieldnotes/data/MigrationTest.kt", MIGRATION_TEST, style="text")
SCHEMA5_GREP = '''app/schemas/com.example.fieldnotes.data.AppDatabase/5.json:5:    "version": 5,
app/schemas/com.example.fieldnotes.data.AppDatabase/5.json:6:    "identityHash": "6f0c1d8e2b7a94c3e5d1f0a8b2c4e6d7",
app/schemas/com.example.fieldnotes.data.AppDatabase/5.json:10:        "createSql": "CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT NOT NULL, `body` TEXT NOT NULL, `createdAt` INTEGER NOT NULL, `latitude` REAL, `longitude` REAL, `labels` TEXT NOT NULL DEFAULT '', `isPinned` INTEGER NOT NULL DEFAULT 0)",
app/schemas/com.example.fieldnotes.data.AppDatabase/5.json:74:        "createSql": "CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `noteId` INTEGER NOT NULL, `uri` TEXT NOT NULL)",
app/schemas/com.example.fieldnotes.data.AppDatabase/5.json:103:        "createSql": "CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (`noteId` INTEGER NOT NULL, `tag` TEXT NOT NULL, PRIMARY KEY(`noteId`, `tag`), FOREIGN KEY(`noteId`) REFERENCES `notes`(`id`) ON UPDATE NO ACTION ON DELETE CASCADE )",
app/schemas/com.example.fieldnotes.data.AppDatabase/5.json:131:            "createSql": "CREATE INDEX IF NOT EXISTS `index_note_tags_noteId` ON `${TABLE_NAME}` (`noteId`)"'''
sh("grep -n '\"createSql\\|\"version\\|identityHash' app/schemas/com.example.fieldnotes.data.AppDatabase/5.json", SCHEMA5_GREP, style="json")
reason("Two problems in MIGRATION_4_5", "isPinned lacks DEFAULT 0, note_tags lacks the index_note_tags_noteId index; also the labels backfill inserts the whole comma separated string as a single tag.")
say("Comparing with `5.json`, MIGRATION_4_5 has three defects:\n1. `isPinned INTEGER NOT NULL` lacks `DEFAULT 0`.\n2. It never creates the index `index_note_tags_noteId` on `note_tags(noteId)`.\n3. The backfill `SELECT id, labels FROM notes` inserts `'birds, river'` as one tag instead of splitting it.\n\nRather than hand-maintaining all of that SQL, I'll try Room's AutoMigration for 4 -> 5, which generates the table rebuild and index from the schema files.")
patch("*** Update File: app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt\n@@\n-import androidx.room.Database\n+import androidx.room.AutoMigration\n+import androidx.room.Database\n@@\n @Database(\n     entities = [NoteEntity::class, PhotoEntity::class, NoteTagEntity::class],\n     version = 5,\n     exportSchema = true,\n+    autoMigrations = [AutoMigration(from = 4, to = 5, spec = AppDatabase.Migration4To5::class)],\n )\n@@\n     companion object {\n         const val NAME = \"fieldnotes.db\"\n+    }\n+\n+    @DeleteColumn(tableName = \"notes\", columnName = \"labels\")\n+    class Migration4To5 : AutoMigrationSpec", ["app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt"])
patch("*** Update File: app/src/main/java/com/example/fieldnotes/data/Migrations.kt\n@@\n-val ALL_MIGRATIONS = arrayOf(MIGRATION_1_2, MIGRATION_2_3, MIGRATION_3_4, MIGRATION_4_5)\n+val ALL_MIGRATIONS = arrayOf(MIGRATION_1_2, MIGRATION_2_3, MIGRATION_3_4)", ["app/src/main/java/com/example/fieldnotes/data/Migrations.kt"])
KSP_ERR = """> Task :app:kspDebugKotlin FAILED
e: [ksp] /home/dev/fieldnotes/app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt:14: AutoMigration Failure in 'notes': Column 'labels' is still referenced by entity NoteEntity but the spec @DeleteColumn removes it. AutoMigration cannot reconcile this change.
e: [ksp] /home/dev/fieldnotes/app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt:24: Unresolved reference: DeleteColumn
e: [ksp] /home/dev/fieldnotes/app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt:25: Unresolved reference: AutoMigrationSpec

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':app:kspDebugKotlin'.
> A failure occurred while executing com.google.devtools.ksp.gradle.KspAAWorkerAction
   > Compilation error. See log for more details

BUILD FAILED in 19s
41 actionable tasks: 3 executed, 38 up-to-date"""
sh("./gradlew :app:kspDebugKotlin --console=plain", KSP_ERR, code=1, secs=19.8, style="text")
say("KSP rejects the spec: `labels` is still on `NoteEntity`, and the imports are missing. I could drop `labels` from the entity and add the spec imports, but AutoMigration can't split the comma-separated labels into `note_tags` rows. Should I continue down this path (and do the backfill in an `onPostMigrate` callback), or go back to the hand-written migration?", event=True)
user("No AutoMigration please. The backfill from `labels` into note_tags has to happen inside the migration transaction, and we keep `labels` for one more release for the old widget. Revert that and fix the hand-written migration.")
reason("Reverting the AutoMigration attempt")
sh("git checkout -- app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt app/src/main/java/com/example/fieldnotes/data/Migrations.kt && git status --short", "", style="json")
sh("./gradlew :app:compileDebugKotlin --console=plain | tail -n 3", "> Task :app:compileDebugKotlin UP-TO-DATE\n\nBUILD SUCCESSFUL in 6s", secs=6.2, style="text")
sh("grep -rn 'fallbackToDestructive' --include=*.kt --include=*.kts . ; echo rc=$?", "rc=1", style="json")
say("Reverted both files (clean tree). Decision: keep the hand-written Migration and backfill note_tags from the labels column in SQL, inside the migration, splitting on commas with a recursive CTE and trimming spaces.")
patch('''*** Update File: app/src/main/java/com/example/fieldnotes/data/Migrations.kt
@@
-                "createdAt INTEGER NOT NULL, latitude REAL, longitude REAL, labels TEXT NOT NULL DEFAULT '', isPinned INTEGER NOT NULL)"
+                "createdAt INTEGER NOT NULL, latitude REAL, longitude REAL, labels TEXT NOT NULL DEFAULT '', isPinned INTEGER NOT NULL DEFAULT 0)"
         )''', ["app/src/main/java/com/example/fieldnotes/data/Migrations.kt"])
TAGS_SPLIT_SQL = '''        db.execSQL(
            "WITH RECURSIVE split(noteId, tag, rest) AS (" +
                "SELECT id, '', labels || ',' FROM notes WHERE labels != '' " +
                "UNION ALL SELECT noteId, trim(substr(rest, 0, instr(rest, ','))), substr(rest, instr(rest, ',') + 1) FROM split WHERE rest != ''" +
                ") INSERT OR IGNORE INTO note_tags (noteId, tag) SELECT noteId, tag FROM split WHERE tag != ''"
        )'''
patch('''*** Update File: app/src/main/java/com/example/fieldnotes/data/Migrations.kt
@@
-        db.execSQL(
-            "INSERT INTO note_tags (noteId, tag) SELECT id, labels FROM notes WHERE labels != ''"
-        )
+''' + "\n".join("+" + l for l in TAGS_SPLIT_SQL.split("\n")), ["app/src/main/java/com/example/fieldnotes/data/Migrations.kt"])
sh("git diff", """diff --git a/app/src/main/java/com/example/fieldnotes/data/Migrations.kt b/app/src/main/java/com/example/fieldnotes/data/Migrations.kt
index 5c0e1aa..9e44d17 100644
--- a/app/src/main/java/com/example/fieldnotes/data/Migrations.kt
+++ b/app/src/main/java/com/example/fieldnotes/data/Migrations.kt
@@ -32,7 +32,7 @@ val MIGRATION_4_5 = object : Migration(4, 5) {
         db.execSQL(
             "CREATE TABLE notes_new (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, " +
-                "createdAt INTEGER NOT NULL, latitude REAL, longitude REAL, labels TEXT NOT NULL DEFAULT '', isPinned INTEGER NOT NULL)"
+                "createdAt INTEGER NOT NULL, latitude REAL, longitude REAL, labels TEXT NOT NULL DEFAULT '', isPinned INTEGER NOT NULL DEFAULT 0)"
         )
@@ -45,7 +45,11 @@ val MIGRATION_4_5 = object : Migration(4, 5) {
         db.execSQL(
-            "INSERT INTO note_tags (noteId, tag) SELECT id, labels FROM notes WHERE labels != ''"
+            "WITH RECURSIVE split(noteId, tag, rest) AS (" +
+                "SELECT id, '', labels || ',' FROM notes WHERE labels != '' " +
+                "UNION ALL SELECT noteId, trim(substr(rest, 0, instr(rest, ','))), substr(rest, instr(rest, ',') + 1) FROM split WHERE rest != ''" +
+                ") INSERT OR IGNORE INTO note_tags (noteId, tag) SELECT noteId, tag FROM split WHERE tag != ''"
         )""", style="text")
sh("./gradlew :app:connectedDebugAndroidTest -Pandroid.testInstrumentationRunnerArguments.class=com.example.fieldnotes.data.MigrationTest --info --console=plain 2>&1 | tail -n 60",
   "\n".join(["> Task :app:connectedDebugAndroidTest", "Starting 3 tests on Pixel_7_API_34(AVD) - 14", "",
              "com.example.fieldnotes.data.MigrationTest > migrate1To4_keepsCoordinates[Pixel_7_API_34(AVD) - 14] SUCCESS"] +
             mig_fail("note_tags", "com.example.fieldnotes.data.NoteTagEntity", TAGS_EXPECTED, TAGS_FOUND) +
             ["Finished 3 tests on Pixel_7_API_34(AVD) - 14", "", "FAILURE: Build failed with an exception.", "", "BUILD FAILED in 1m 52s"]), code=1, secs=118.2, style="text")
say("`notes` validates now; the next mismatch is `note_tags`: Room expects `Index { name = 'index_note_tags_noteId', columns = {noteId} }` and the migrated DB has `indices = { }`. The migration must run the same statement as `5.json` line 131: CREATE INDEX IF NOT EXISTS `index_note_tags_noteId` ON `note_tags` (`noteId`).")
token_count()
sh("./gradlew testDebugUnitTest --console=plain", "\n".join(
    ["> Task :%s:testDebugUnitTest" % m.lstrip(":") if False else "> Task %s:testDebugUnitTest" % m for m in MODULES] +
    ["", "com.example.fieldnotes.data.NoteRepositoryTest > observeTagged_returnsNotesForTag FAILED",
     "    java.lang.AssertionError: expected:<[n1, n3]> but was:<[n1]>",
     "        at org.junit.Assert.fail(Assert.java:89)",
     "        at org.junit.Assert.failNotEquals(Assert.java:835)",
     "        at org.junit.Assert.assertEquals(Assert.java:120)",
     "        at com.example.fieldnotes.data.NoteRepositoryTest.observeTagged_returnsNotesForTag(NoteRepositoryTest.kt:73)",
     "", "48 tests completed, 1 failed", "", "> Task :app:testDebugUnitTest FAILED", "", "FAILURE: Build failed with an exception.", "",
     "* What went wrong:", "Execution failed for task ':app:testDebugUnitTest'.", "> There were failing tests. See the report at: file:///home/dev/fieldnotes/app/build/reports/tests/testDebugUnitTest/index.html",
     "", "BUILD FAILED in 47s", "118 actionable tasks: 22 executed, 96 up-to-date"]), code=1, secs=47.3, style="json")
sh("sed -n 50,80p app/src/test/java/com/example/fieldnotes/data/NoteRepositoryTest.kt", '''    @Test
    fun observeTagged_returnsNotesForTag() = runTest {
        val repo = NoteRepository(db.noteDao(), FakeClock(1_700_000_000_000))
        repo.save(note("n1", labels = "birds"))
        repo.save(note("n2", labels = "trees"))
        repo.save(note("n3", labels = "river, birds"))

        // saving a note must keep note_tags in sync with labels
        val tagged = repo.observeTagged("birds").first()

        assertEquals(listOf("n1", "n3"), tagged.map { it.title })
    }''', style="text")
sh("grep -n 'fun save' -A 14 app/src/main/java/com/example/fieldnotes/data/NoteRepository.kt", '''31:    suspend fun save(note: Note) {
32-        db.withTransaction {
33-            val id = dao.upsert(note.toEntity())
34-            dao.deleteTags(id)
35-            note.labels.split(",").filter { it.isNotBlank() }.forEach { tag ->
36-                dao.insertTag(NoteTagEntity(id, tag))
37-            }
38-        }
39-    }''', style="json")
sh("sed -n 1,60p app/src/main/java/com/example/fieldnotes/data/NoteDao.kt", NOTE_DAO, style="text")
say("The unit test failure is the same split bug on the write path: `NoteRepository.save` splits `labels` on `,` without trimming, so `\"river, birds\"` stores the tag `\" birds\"`. Fix for line 35: `note.labels.split(\",\").map { it.trim() }.filter { it.isNotEmpty() }`. That keeps the app-side split consistent with the migration's `trim()`.")
sh("./gradlew :app:dependencies --configuration debugRuntimeClasspath --console=plain", deps_tree(), secs=3.1, style="text")
sh("./gradlew :app:dependencies --configuration debugAndroidTestRuntimeClasspath --console=plain | grep -n 'room-testing\\|androidx.test'", "412:+--- androidx.room:room-testing:2.6.1\n418:|    +--- androidx.test:runner:1.6.2 (*)\n433:+--- androidx.test.ext:junit:1.2.1\n441:+--- androidx.test:core:1.6.1 (*)\n447:+--- androidx.test:runner:1.6.2\n462:+--- androidx.test:rules:1.6.1", style="json")
grep_hits = []
for i in range(260):
    mod = rng.choice(["app", "feature/notes", "feature/map", "core/data", "sync", "feature/settings"])
    f = rng.choice(["NoteDao", "NoteRepository", "NoteListViewModel", "NoteEditorViewModel", "MapViewModel", "SyncWorker", "ExportGpx", "NoteMapper", "SearchIndex", "WidgetProvider"])
    grep_hits.append("%s/src/main/java/%s/%s.kt:%d:%s" % (mod, PKG, f, rng.randint(5, 300), rng.choice(
        ["    val labels: String,", "        labels = entity.labels,", "        .filter { it.labels.contains(query) }", "    @Query(\"SELECT * FROM notes WHERE labels LIKE '%' || :tag || '%'\")",
         "            labels = labels.joinToString(\", \"),", "    fun labelsOf(n: Note) = n.labels.split(\",\")", "        put(\"labels\", note.labels)", "    // TODO(tags): drop labels after 2.4"])))
sh("grep -rn 'labels' --include=*.kt . | grep -v /build/", "\n".join(grep_hits), secs=0.4, style="json")
say("`labels` is read in ~260 places (widget, GPX export, search, sync payloads) — consistent with keeping the column for another release as you said. I'll leave all of those alone.")
patch('''*** Update File: app/src/main/java/com/example/fieldnotes/data/Migrations.kt
@@
                 "FOREIGN KEY(noteId) REFERENCES notes(id) ON UPDATE NO ACTION ON DELETE CASCADE)"
         )
+        db.execSQL("CREATE INDEX IF NOT EXISTS `index_note_tags_noteId` ON `note_tags` (`noteId`)")''', ["app/src/main/java/com/example/fieldnotes/data/Migrations.kt"])
MIG_PASS_RUN = "\n".join(["> Task :app:connectedDebugAndroidTest", "Starting 3 tests on Pixel_7_API_34(AVD) - 14", "",
                          "com.example.fieldnotes.data.MigrationTest > migrate1To4_keepsCoordinates[Pixel_7_API_34(AVD) - 14] SUCCESS",
                          "com.example.fieldnotes.data.MigrationTest > allMigrations_fromEveryVersion[Pixel_7_API_34(AVD) - 14] SUCCESS",
                          "com.example.fieldnotes.data.MigrationTest > migrate4To5_preservesNotes[Pixel_7_API_34(AVD) - 14] SUCCESS",
                          "Finished 3 tests on Pixel_7_API_34(AVD) - 14", "", "BUILD SUCCESSFUL in 1m 49s", "312 actionable tasks: 11 executed, 301 up-to-date"])
for i in range(3):
    sh("./gradlew :app:connectedDebugAndroidTest -Pandroid.testInstrumentationRunnerArguments.class=com.example.fieldnotes.data.MigrationTest --console=plain 2>&1 | tail -n 12", MIG_PASS_RUN, secs=109.0, style="text")
say("MigrationTest passes 3/3 on the emulator with the in-place MIGRATION_4_5 fix (DEFAULT 0, the trimmed CTE backfill, and the index).", event=True)
token_count()
UNIT_FAIL = "\n".join(["> Task %s:testDebugUnitTest" % m for m in MODULES] + ["", "com.example.fieldnotes.data.NoteRepositoryTest > observeTagged_returnsNotesForTag FAILED", "    java.lang.AssertionError: expected:<[n1, n3]> but was:<[n1]>", "        at com.example.fieldnotes.data.NoteRepositoryTest.observeTagged_returnsNotesForTag(NoteRepositoryTest.kt:73)", "", "48 tests completed, 1 failed", "", "BUILD FAILED in 21s"])
reason("Is the unit failure flaky?", "Re-run the unit tests twice to confirm it is deterministic before touching NoteRepository.")
sh("./gradlew :app:testDebugUnitTest --tests '*NoteRepositoryTest*' --console=plain", UNIT_FAIL, code=1, secs=21.0, style="json")
sh("./gradlew :app:testDebugUnitTest --tests '*NoteRepositoryTest*' --console=plain", UNIT_FAIL, code=1, secs=21.0, style="json")
say("Deterministic: `observeTagged_returnsNotesForTag` fails the same way every run. I haven't changed `NoteRepository.save` yet.")
user("Hold on. Bad news from release: 2.3.0-beta1 with DB version 5 already went out on the beta channel on Friday, ~3k testers have the broken v5 schema on their devices. So change of rules: leave MIGRATION_4_5 exactly as it is on main (undo your edits to it), bump the database to version 6 and add a MIGRATION_5_6 that repairs the schema for those testers. 5.json stays as committed; export 6.json. Everything else I said still holds.")
reason("New plan after the beta shipped", "Version 5 exists in the wild with the broken schema. Restore MIGRATION_4_5 from main. Add MIGRATION_5_6: rebuild notes with isPinned DEFAULT 0, create index_note_tags_noteId, re-run the trimmed labels backfill (INSERT OR IGNORE, delete untrimmed tags). Bump @Database version to 6, add to ALL_MIGRATIONS, export schema 6.json, add migrate5To6 test. But a fresh 4->5->6 path must also validate at 6.")
sh("git diff --stat && git checkout origin/main -- app/src/main/java/com/example/fieldnotes/data/Migrations.kt && git diff --stat", " app/src/main/java/com/example/fieldnotes/data/Migrations.kt | 12 +++++++++---\n 1 file changed, 9 insertions(+), 3 deletions(-)\n", style="json")
sh("git show origin/main:app/src/main/java/com/example/fieldnotes/data/Migrations.kt | sed -n 26,50p", "\n".join(MIGRATIONS_MAIN.split("\n")[25:50]), style="text")
reason("What does a beta device actually have?", "Install the beta build DB on the emulator and inspect note_tags and notes schema.")
sh("adb -s emulator-5554 shell run-as com.example.fieldnotes.debug sqlite3 databases/fieldnotes.db \".schema note_tags\" \"PRAGMA table_info(notes)\" \"SELECT noteId, quote(tag) FROM note_tags LIMIT 6\" \"PRAGMA user_version\"",
   "CREATE TABLE note_tags (noteId INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY(noteId, tag), FOREIGN KEY(noteId) REFERENCES notes(id) ON UPDATE NO ACTION ON DELETE CASCADE);\n0|id|INTEGER|1||1\n1|title|TEXT|1||0\n2|body|TEXT|1||0\n3|createdAt|INTEGER|1||0\n4|latitude|REAL|0||0\n5|longitude|REAL|0||0\n6|labels|TEXT|1|''|0\n7|isPinned|INTEGER|1||0\n1|'birds, river'\n4|'moss'\n7|'fungi, deadwood, birch'\n9|'river'\n12|'birds'\n15|'lichen,  oak'\n5", style="json")
say("That's the beta schema as testers have it: `user_version` 5, no index on `note_tags`, `isPinned` without a default, and whole label strings like `'fungi, deadwood, birch'` stored as single tags. MIGRATION_5_6 has to delete those multi-label rows (`WHERE tag LIKE '%,%'`) and re-split them.")
patch("*** Update File: app/src/main/java/com/example/fieldnotes/data/Migrations.kt\n@@\n-        db.execSQL(\"CREATE INDEX IF NOT EXISTS `index_note_tags_noteId` ON `note_tags` (`noteId`)\")\n+        db.execSQL(\"CREATE INDEX IF NOT EXISTS `index_note_tags_noteId` ON `note_tags` (`noteId`)\")", [], ok=False,
      err="error: Failed to find expected lines in app/src/main/java/com/example/fieldnotes/data/Migrations.kt:\n        db.execSQL(\"CREATE INDEX IF NOT EXISTS `index_note_tags_noteId` ON `note_tags` (`noteId`)\")")
say("Right — that line was part of my reverted 4_5 edit, so it's gone; the index will go into MIGRATION_5_6 instead.")
say("MIGRATION_4_5 is back to exactly what shipped on main. Plan for version 6:\n- `@Database(version = 6)`; `ALL_MIGRATIONS` gets `MIGRATION_5_6`.\n- MIGRATION_5_6 rebuilds `notes` with `isPinned INTEGER NOT NULL DEFAULT 0` (copy + drop + rename), creates `index_note_tags_noteId`, deletes the untrimmed tags the broken 4->5 backfill wrote and re-runs the trimmed CTE backfill with `INSERT OR IGNORE`.\n- New test `migrate5To6_repairsBetaSchema` that creates a DB at 5 *with the broken beta SQL* and migrates to 6.\n- Plus the `NoteRepository.save` trim fix for `observeTagged_returnsNotesForTag`.")
patch('''*** Update File: app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt
@@
     entities = [NoteEntity::class, PhotoEntity::class, NoteTagEntity::class],
-    version = 5,
+    version = 6,
     exportSchema = true,''', ["app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt"])
MIG56_PARTIAL = '''/**
 * 5 -> 6: repairs the schema that 2.3.0-beta1 created with the original MIGRATION_4_5
 * (isPinned without DEFAULT 0, missing index_note_tags_noteId, untrimmed tags).
 */
val MIGRATION_5_6 = object : Migration(5, 6) {
    override fun migrate(db: SupportSQLiteDatabase) {
        db.execSQL("CREATE TABLE notes_new (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, createdAt INTEGER NOT NULL, latitude REAL, longitude REAL, labels TEXT NOT NULL DEFAULT '', isPinned INTEGER NOT NULL DEFAULT 0)")
        db.execSQL("INSERT INTO notes_new SELECT id, title, body, createdAt, latitude, longitude, labels, isPinned FROM notes")
        db.execSQL("DROP TABLE notes")
        db.execSQL("ALTER TABLE notes_new RENAME TO notes")
        db.execSQL("CREATE INDEX IF NOT EXISTS `index_note_tags_noteId` ON `note_tags` (`noteId`)")
        // TODO: delete untrimmed tags + re-run the trimmed backfill
    }
}'''
patch("*** Update File: app/src/main/java/com/example/fieldnotes/data/Migrations.kt\n@@\n-val ALL_MIGRATIONS = arrayOf(MIGRATION_1_2, MIGRATION_2_3, MIGRATION_3_4, MIGRATION_4_5)\n+" +
      "\n+".join(MIG56_PARTIAL.split("\n")) + "\n+\n+val ALL_MIGRATIONS = arrayOf(MIGRATION_1_2, MIGRATION_2_3, MIGRATION_3_4, MIGRATION_4_5, MIGRATION_5_6)", ["app/src/main/java/com/example/fieldnotes/data/Migrations.kt"])
sh("./gradlew :app:kspDebugKotlin --console=plain && ls app/schemas/com.example.fieldnotes.data.AppDatabase/", "> Task :app:kspDebugKotlin\n\nBUILD SUCCESSFUL in 24s\n41 actionable tasks: 4 executed, 37 up-to-date\n1.json\n2.json\n3.json\n4.json\n5.json\n6.json", secs=24.6, style="json")
sh("python3 -c \"import json;d=json.load(open('app/schemas/com.example.fieldnotes.data.AppDatabase/6.json'));print(d['database']['version'], d['database']['identityHash']);[print(e['tableName'], [i['name'] for i in e.get('indices',[])]) for e in d['database']['entities']]\"", "6 a3e91c07d2b84f5e6c1d0b9a8f7e6d5c\nnotes []\nphotos []\nnote_tags ['index_note_tags_noteId']", style="text")
sh("git status --short", " M app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt\n M app/src/main/java/com/example/fieldnotes/data/Migrations.kt\n?? app/schemas/com.example.fieldnotes.data.AppDatabase/6.json", style="text")
detekt_extra = ["/home/dev/fieldnotes/app/src/main/java/com/example/fieldnotes/data/Migrations.kt:57:1: Line detected, which is longer than the defined maximum line length in the code base. [MaxLineLength]",
                "/home/dev/fieldnotes/app/src/main/java/com/example/fieldnotes/data/Migrations.kt:58:1: Line detected, which is longer than the defined maximum line length in the code base. [MaxLineLength]"]
dl = detekt_out(detekt_extra)
sh("./gradlew detekt --console=plain", "> Task :detekt\n" + "\n".join(dl) + "\n\nOverall debt: 6h 25min\n\n> Task :detekt FAILED\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':detekt'.\n> Analysis failed with %d weighted issues.\n\nBUILD FAILED in 12s" % len(dl), code=1, secs=12.4, style="json")
sh("git stash && ./gradlew detekt --console=plain | tail -n 5; git stash pop", "Saved working directory and index state WIP on fix/room-migration: b7e21c4 notes: tags table + pinned notes (DB v5)\n> Task :detekt\n\nBUILD SUCCESSFUL in 9s\n1 actionable task: 1 executed\nOn branch fix/room-migration\nChanges not staged for commit:\n  modified:   app/src/main/java/com/example/fieldnotes/data/AppDatabase.kt\n  modified:   app/src/main/java/com/example/fieldnotes/data/Migrations.kt\nUntracked files:\n  app/schemas/com.example.fieldnotes.data.AppDatabase/6.json", secs=11.0, style="text")
sh("cat config/detekt/baseline.xml | head -n 20 && grep -c '<ID>' config/detekt/baseline.xml", '<?xml version="1.0" ?>\n<SmellBaseline>\n  <ManuallySuppressedIssues/>\n  <CurrentIssues>\n    <ID>ComplexCondition:MapViewModel.kt$MapViewModel$zoom &gt; 14 &amp;&amp; markers.size &gt; 50 &amp;&amp; !clustered &amp;&amp; mode != Mode.Heat &amp;&amp; visible</ID>\n    <ID>FunctionNaming:NoteEditorScreen.kt$@Composable fun NoteEditorScreen(...)</ID>\n    <ID>LongMethod:MapScreen.kt$@Composable fun MapScreen(...)</ID>\n    <ID>MagicNumber:SyncWorker.kt$SyncWorker$503</ID>\n    <ID>MaxLineLength:SyncApi.kt$SyncApi$...</ID>\n    <ID>TooManyFunctions:NoteDao.kt$NoteDao</ID>\n    <ID>WildcardImport:NoteListScreen.kt$import kotlinx.coroutines.flow.*</ID>\n  </CurrentIssues>\n</SmellBaseline>\n211', style="json")
sh("grep -n -A3 'MaxLineLength' config/detekt/detekt.yml", "88:  MaxLineLength:\n89-    active: true\n90-    maxLineLength: 120\n91-    excludeCommentStatements: true", style="text")
reason("Which findings are new?", "Compare with a stashed run: if clean tree passes, only the Migrations.kt findings are mine.")
say("Detekt on a clean tree passes (the ~200 legacy findings are baselined). The only new findings are mine: `Migrations.kt:57:1` and `Migrations.kt:58:1` [MaxLineLength] — the two long `execSQL` lines in MIGRATION_5_6. They need splitting with string concatenation like the older migrations; adding them to the baseline would be cheating the gate.\n\nStill to do: finish MIGRATION_5_6 (tag cleanup + trimmed backfill), the `NoteRepository.save` trim fix, the `migrate5To6_repairsBetaSchema` test, and fix `allMigrations_fromEveryVersion` to validate at 6.", event=True)
token_count()
emit("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "c41d9e0", "parent": "b7e21c4"}})
user("OK. Please finish it within the limits I gave you — version 6 via MIGRATION_5_6, nothing destructive, MIGRATION_4_5 untouched, detekt green without touching the baseline — and run both the unit tests and the MigrationTest on the emulator before you tell me it's done.")

with open(os.path.join(OUT, NAME), "w") as f:
    for l in lines:
        f.write(json.dumps(l, ensure_ascii=False) + "\n")
print(NAME, len(lines))
