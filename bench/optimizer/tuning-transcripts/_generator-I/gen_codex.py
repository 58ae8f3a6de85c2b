import json, random, datetime
random.seed(23)
OUT="/work/tuneset-I/codex-csharp-aspnetcore-shipment-eta-nullable.jsonl"
CWD="/home/dev/fleetwise"
t=[datetime.datetime(2026,12,4,9,12,3)]
L=[]
def ts():
    t[0]+=datetime.timedelta(seconds=random.randint(2,30)); return t[0].strftime("%Y-%m-%dT%H:%M:%S.")+"%03dZ"%random.randint(0,999)
def line(typ,payload): L.append({"timestamp":ts(),"type":typ,"payload":payload})
tok=[20000]
def tokcount():
    tok[0]+=random.randint(1500,9000)
    line("event_msg",{"type":"token_count","info":{"total_token_usage":{"input_tokens":tok[0],"cached_input_tokens":int(tok[0]*0.85),"output_tokens":tok[0]//40,"reasoning_output_tokens":tok[0]//80,"total_tokens":tok[0]+tok[0]//40}},"rate_limits":None})
def user(text):
    line("response_item",{"type":"message","role":"user","content":[{"type":"input_text","text":text}]})
    line("event_msg",{"type":"user_message","message":text,"images":[]})
def say(text):
    line("response_item",{"type":"message","role":"assistant","content":[{"type":"output_text","text":text}]})
    line("event_msg",{"type":"agent_message","message":text})
def reason(title):
    line("response_item",{"type":"reasoning","summary":[{"type":"summary_text","text":title}],"content":None,"encrypted_content":"gAAAAABp"+"%040x"%random.getrandbits(160)})
n=[0]
def sh(cmd,out,code=0,enc=None):
    n[0]+=1; cid="call_%s"%("%022x"%random.getrandbits(88))
    enc=enc or ("json" if n[0]%2 else "text")
    if enc=="json":
        line("response_item",{"type":"function_call","name":"shell","arguments":json.dumps({"command":["bash","-lc",cmd],"workdir":CWD,"timeout_ms":300000}),"call_id":cid})
        line("response_item",{"type":"function_call_output","call_id":cid,"output":json.dumps({"output":out,"metadata":{"exit_code":code,"duration_seconds":round(random.uniform(0.1,60),1)}})})
    else:
        line("response_item",{"type":"function_call","name":"shell_command","arguments":json.dumps({"command":cmd,"workdir":CWD}),"call_id":cid})
        line("response_item",{"type":"function_call_output","call_id":cid,"output":"Exit code: %d\nWall time: %.1f seconds\nOutput:\n%s"%(code,random.uniform(0.1,60),out)})
    if n[0]%3==0: tokcount()
def patch(body,files,ok=True):
    cid="call_%s"%("%022x"%random.getrandbits(88))
    line("response_item",{"type":"custom_tool_call","status":"completed","call_id":cid,"name":"apply_patch","input":"*** Begin Patch\n"+body+"\n*** End Patch"})
    msg=("Success. Updated the following files:\n"+"".join("M %s\n"%f for f in files)) if ok else "Failed to apply patch: context not found"
    line("response_item",{"type":"custom_tool_call_output","call_id":cid,"output":json.dumps({"output":msg,"metadata":{"exit_code":0 if ok else 1,"duration_seconds":0.0}})})
    line("event_msg",{"type":"patch_apply_end","call_id":cid,"stdout":msg if ok else "","stderr":"" if ok else msg,"success":ok})

line("session_meta",{"id":"019ae2f1-3c44-7b10-a2d8-5f1e9c0b7a21","timestamp":"2026-12-04T09:12:00.000Z","cwd":CWD,"originator":"codex_cli_rs","cli_version":"0.58.0","instructions":None,"source":"cli","model_provider":"openai","git":{"commit_hash":"b83d0f4","branch":"fix/eta-null-carrier","repository_url":"git@github.com:fleetwise/fleetwise-api.git"}})
line("response_item",{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>%s</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"%CWD}]})
line("turn_context",{"cwd":CWD,"approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write","network_access":False},"model":"gpt-5.1-codex","effort":"medium","summary":"auto"})
user("GET /api/shipments/{id}/eta returns 500 for shipments that have no carrier assigned yet (ops creates them from the EDI import before dispatch picks a carrier). Fix it so those return an ETA with status Unknown.\n\nConstraints: no EF Core migration and no change to the Shipment model/schema; do not touch Directory.Build.props (TreatWarningsAsErrors and Nullable=enable stay); `dotnet format --verify-no-changes` has to pass in CI.")
reason("**Reproducing the 500 and building**")
# flood: dotnet build log with stale error
def build_log(errors):
    o=["  Determining projects to restore...","  All projects are up-to-date for restore."]
    projs=["Fleetwise.Domain","Fleetwise.Infrastructure","Fleetwise.Api","Fleetwise.Worker","Fleetwise.Api.Tests","Fleetwise.Domain.Tests"]
    for p in projs:
        for k in range(random.randint(40,70)):
            o.append("  %s -> /home/dev/fleetwise/src/%s/obj/Debug/net8.0/%s"%(p,p,random.choice(["%s.AssemblyInfo.cs"%p,"%s.GlobalUsings.g.cs"%p,"ref/%s.dll"%p,"%s.csproj.CoreCompileInputs.cache"%p,"refint/%s.dll"%p,"%s.sourcelink.json"%p])))
        for k in range(random.randint(10,25)):
            o.append("/home/dev/fleetwise/src/%s/%s.cs(%d,%d): warning %s: %s [/home/dev/fleetwise/src/%s/%s.csproj]"%(p,random.choice(["Program","Extensions/ServiceCollectionExtensions","Mapping/Profiles","Options/EtaOptions"]),random.randint(1,200),random.randint(1,60),random.choice(["CA1848","CA2254","IDE0290","CA1822"]),random.choice(["For improved performance, use the LoggerMessage delegates instead of calling 'LoggerExtensions.LogInformation(ILogger, string?, params object?[])'","The logging message template should not vary between calls to 'LoggerExtensions.LogWarning(ILogger, string?, params object?[])'","Use primary constructor","Member 'Map' does not access instance data and can be marked as static"]),p,p))
        o.append("  %s -> /home/dev/fleetwise/src/%s/bin/Debug/net8.0/%s.dll"%(p,p,p))
    o+=errors
    o+=["","Build FAILED." if errors else "Build succeeded.",""]
    o.append("    %d Warning(s)"%random.randint(80,120)); o.append("    %d Error(s)"%len(errors)); o.append(""); o.append("Time Elapsed 00:00:%02d.%02d"%(random.randint(20,59),random.randint(0,99)))
    return "\n".join(o)
stale="/home/dev/fleetwise/src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs(112,24): error CS8618: Non-nullable property 'Reference' must contain a non-null value when exiting constructor. Consider adding the 'required' modifier or declaring the property as nullable. [/home/dev/fleetwise/src/Fleetwise.Infrastructure/Fleetwise.Infrastructure.csproj]"
sh("dotnet build Fleetwise.sln -c Debug",build_log([stale]),1)
say("The build fails before anything else, with CS8618 in `EdiShipmentImporter.cs(112,24)`. Checking whether that's on my branch or upstream.")
sh("git status -sb && git log --oneline -3 origin/main","## fix/eta-null-carrier...origin/main [behind 2]\nb83d0f4 EDI: import shipment references\n4a1c9e2 Bump EF Core to 8.0.11\n77f0e3d Add ETA endpoint",0)
sh("git pull --ff-only","Updating b83d0f4..e51a7c8\nFast-forward\n src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs | 4 ++--\n src/Fleetwise.Api/Endpoints/ShipmentEndpoints.cs          | 9 ++++++---\n 2 files changed, 8 insertions(+), 5 deletions(-)",0)
say("A teammate already fixed the CS8618 upstream (`required string Reference`). Rebuilding.")
sh("dotnet build Fleetwise.sln -c Debug",build_log([]),0)
sh("dotnet test tests/Fleetwise.Api.Tests --no-build --logger 'console;verbosity=normal'", "\n".join(
 ["Test run for /home/dev/fleetwise/tests/Fleetwise.Api.Tests/bin/Debug/net8.0/Fleetwise.Api.Tests.dll (.NETCoreApp,Version=v8.0)","VSTest version 17.11.1 (x64)","","Starting test execution, please wait...","A total of 1 test files matched the specified pattern."]+
 ["  Passed Fleetwise.Api.Tests.%s [%d ms]"%(random.choice(["Endpoints.ShipmentEndpointTests.Get_ReturnsShipment","Endpoints.ShipmentEndpointTests.List_Paginates","Endpoints.CarrierEndpointTests.Create_Validates","Services.EtaCalculatorTests.Calculate_AddsTransitDays_%d"%random.randint(1,40),"Services.RoutePlannerTests.Plan_%d"%random.randint(1,60),"Validation.ShipmentValidatorTests.Rejects_%d"%random.randint(1,30)]),random.randint(1,300)) for _ in range(230)]+
 ["  Failed Fleetwise.Api.Tests.Endpoints.ShipmentEtaEndpointTests.GetEta_ReturnsUnknown_WhenCarrierMissing [412 ms]","  Error Message:","   Assert.Equal() Failure: Values differ","Expected: OK","Actual:   InternalServerError","  Stack Trace:","     at Fleetwise.Api.Tests.Endpoints.ShipmentEtaEndpointTests.GetEta_ReturnsUnknown_WhenCarrierMissing() in /home/dev/fleetwise/tests/Fleetwise.Api.Tests/Endpoints/ShipmentEtaEndpointTests.cs:line 64","--- End of stack trace from previous location ---","  Standard Output Messages:",
  "fail: Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware[1]","      An unhandled exception has occurred while executing the request.","      System.NullReferenceException: Object reference not set to an instance of an object.",
  "         at Fleetwise.Api.Services.EtaCalculator.Calculate(Shipment shipment, DateTimeOffset now) in /home/dev/fleetwise/src/Fleetwise.Api/Services/EtaCalculator.cs:line 57",
  "         at Fleetwise.Api.Endpoints.ShipmentEndpoints.GetEta(Guid id, FleetwiseDbContext db, EtaCalculator eta, TimeProvider clock) in /home/dev/fleetwise/src/Fleetwise.Api/Endpoints/ShipmentEndpoints.cs:line 91",
  "         at Microsoft.AspNetCore.Http.RequestDelegateFactory.ExecuteTaskResult[T](Task`1 task, HttpContext httpContext)","         at Microsoft.AspNetCore.Routing.EndpointMiddleware.<Invoke>g__AwaitRequestTask|7_0(Endpoint endpoint, Task requestTask, ILogger logger)","         at Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddlewareImpl.<Invoke>g__Awaited|10_0(ExceptionHandlerMiddlewareImpl middleware, HttpContext context, Task task)",
  "","Failed!  - Failed:     1, Passed:   230, Skipped:     2, Total:   233, Duration: 18 s - Fleetwise.Api.Tests.dll (net8.0)"]),1)
say("Failing test: `ShipmentEtaEndpointTests.GetEta_ReturnsUnknown_WhenCarrierMissing`, NRE in `EtaCalculator.Calculate` at line 57. Let me look at the calculator and the model.")
CALC=["using Fleetwise.Domain;","using Fleetwise.Domain.Shipments;","using Microsoft.Extensions.Options;","","namespace Fleetwise.Api.Services;","","public sealed class EtaCalculator(IOptions<EtaOptions> options, IHolidayCalendar holidays)","{"]
CALC+=["    // helper %d"%i for i in range(40)]
CALC+=["    public EtaResult Calculate(Shipment shipment, DateTimeOffset now)","    {","        var departed = shipment.DepartedAt ?? now;","        var profile = shipment.Carrier.TransitProfile;","        var days = profile.BaseTransitDays + Surcharge(shipment.Lane);","        var eta = holidays.AddBusinessDays(departed, days);","        return new EtaResult(EtaStatus.Estimated, eta, shipment.Carrier.Code);","    }","}"]
sh("nl -ba src/Fleetwise.Api/Services/EtaCalculator.cs | sed -n 45,70p","\n".join("%6d\t%s"%(i+1,l) for i,l in enumerate(CALC) if 44<=i<70),0)
MODEL="""namespace Fleetwise.Domain.Shipments;

public class Shipment
{
    public Guid Id { get; set; }
    public required string Reference { get; set; }
    public Guid? CarrierId { get; set; }
    public Carrier Carrier { get; set; } = null!;
    public required Lane Lane { get; set; }
    public DateTimeOffset? DepartedAt { get; set; }
    public DateTimeOffset CreatedAt { get; set; }
    public ShipmentState State { get; set; }
    public ICollection<ShipmentEvent> Events { get; set; } = new List<ShipmentEvent>();
}
"""
sh("cat src/Fleetwise.Domain/Shipments/Shipment.cs",MODEL,0)
say("`CarrierId` is already `Guid?` in the model, but the navigation is declared `Carrier Carrier { get; set; } = null!;` so the compiler thinks it's never null. Line 57 (`shipment.Carrier.TransitProfile`) dereferences it.")
# flood: grep hundreds of hits
hits=[]
fs=["src/Fleetwise.Api/Endpoints/ShipmentEndpoints.cs","src/Fleetwise.Api/Endpoints/CarrierEndpoints.cs","src/Fleetwise.Infrastructure/Persistence/Configurations/ShipmentConfiguration.cs","src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs","src/Fleetwise.Worker/DispatchWorker.cs","src/Fleetwise.Api/Mapping/ShipmentMapping.cs","tests/Fleetwise.Api.Tests/Endpoints/ShipmentEndpointTests.cs","tests/Fleetwise.Api.Tests/Services/EtaCalculatorTests.cs","src/Fleetwise.Infrastructure/Persistence/Migrations/20261020101512_AddCarrierProfiles.cs","src/Fleetwise.Infrastructure/Persistence/Migrations/FleetwiseDbContextModelSnapshot.cs"]
for i in range(320):
    hits.append("%s:%d:%s"%(random.choice(fs),random.randint(3,500),random.choice(["        var carrier = shipment.Carrier;","            .Include(s => s.Carrier)","            b.HasOne(s => s.Carrier).WithMany().HasForeignKey(s => s.CarrierId);","        shipment.Carrier = await db.Carriers.FindAsync(cmd.CarrierId);","            CarrierCode = s.Carrier.Code,","                        b.Property<Guid?>(\"CarrierId\")","        Assert.Equal(\"DHL\", dto.CarrierCode);","    public Carrier Carrier { get; set; } = null!;","            .Where(s => s.Carrier.Active)","        _logger.LogInformation(\"Carrier {Carrier} assigned\", shipment.Carrier.Code);"])))
sh("grep -rn 'Carrier' src tests --include=*.cs | grep -v '/obj/'","\n".join(hits),0)
say("~320 usages of `.Carrier`. Many assume non-null. Changing the navigation to `Carrier?` will light up CS8602 across the solution.")
sh("cat src/Fleetwise.Api/Contracts/ShipmentEtaDto.cs","namespace Fleetwise.Api.Contracts;\n\npublic sealed record ShipmentEtaDto(\n    Guid ShipmentId,\n    string Status,\n    DateTimeOffset? EstimatedArrival,\n    string? CarrierCode);\n",0)
sh("sed -n 80,100p src/Fleetwise.Api/Endpoints/ShipmentEndpoints.cs","    group.MapGet(\"/{id:guid}/eta\", GetEta).WithName(\"GetShipmentEta\");\n}\n\nprivate static async Task<Results<Ok<ShipmentEtaDto>, NotFound>> GetEta(\n    Guid id, FleetwiseDbContext db, EtaCalculator eta, TimeProvider clock)\n{\n    var shipment = await db.Shipments\n        .Include(s => s.Carrier).ThenInclude(c => c.TransitProfile)\n        .SingleOrDefaultAsync(s => s.Id == id);\n    if (shipment is null) return TypedResults.NotFound();\n    var result = eta.Calculate(shipment, clock.GetUtcNow());\n    return TypedResults.Ok(new ShipmentEtaDto(id, result.Status.ToString(), result.EstimatedArrival, result.CarrierCode));\n}\n",0)
reason("**Trying nullable navigation**")
say("I'll make the navigation `Carrier? Carrier` (no schema change: the FK column is already nullable) and guard in `EtaCalculator`.")
patch("*** Update File: src/Fleetwise.Domain/Shipments/Shipment.cs\n@@\n-    public Carrier Carrier { get; set; } = null!;\n+    public Carrier? Carrier { get; set; }",["src/Fleetwise.Domain/Shipments/Shipment.cs"])
errs=[]
for i in range(37):
    f=random.choice(fs[:8]); errs.append("/home/dev/fleetwise/%s(%d,%d): error CS8602: Dereference of a possibly null reference. [/home/dev/fleetwise/src/%s/%s.csproj]"%(f,random.randint(10,300),random.randint(9,60),f.split("/")[1],f.split("/")[1]))
errs.insert(5,"/home/dev/fleetwise/src/Fleetwise.Api/Services/EtaCalculator.cs(57,31): error CS8602: Dereference of a possibly null reference. [/home/dev/fleetwise/src/Fleetwise.Api/Fleetwise.Api.csproj]")
sh("dotnet build Fleetwise.sln -c Debug 2>&1 | tail -400",build_log(errs),1)
say("38 CS8602 errors across Api, Infrastructure and Worker. As a quick way to see whether the runtime behaviour is right, I'll suppress CS8602 in the Api project temporarily.")
patch("*** Update File: src/Fleetwise.Api/Fleetwise.Api.csproj\n@@\n   <PropertyGroup>\n     <TargetFramework>net8.0</TargetFramework>\n+    <NoWarn>$(NoWarn);CS8602</NoWarn>\n   </PropertyGroup>",["src/Fleetwise.Api/Fleetwise.Api.csproj"])
sh("dotnet build src/Fleetwise.Api -c Debug 2>&1 | tail -5","    84 Warning(s)\n    0 Error(s)\n\nTime Elapsed 00:00:21.77",0)
tokcount()
user("No. Don't suppress nullable warnings anywhere, not in the csproj, not with #pragma, and no `!` null-forgiving on Carrier either — that's exactly how we got here. Revert that.")
reason("**Reverting NoWarn**")
sh("git checkout -- src/Fleetwise.Api/Fleetwise.Api.csproj && git diff --stat","src/Fleetwise.Domain/Shipments/Shipment.cs | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)",0)
say("Reverted the <NoWarn>CS8602</NoWarn> change; the csproj is back to origin. Decision: keep `Carrier? Carrier` and fix each CS8602 properly with null checks / pattern matching, and in EtaCalculator return EtaStatus.Unknown with EstimatedArrival = null when shipment.Carrier is null.")
patch("*** Update File: src/Fleetwise.Api/Services/EtaCalculator.cs\n@@\n     public EtaResult Calculate(Shipment shipment, DateTimeOffset now)\n     {\n+        if (shipment.Carrier is not { } carrier)\n+        {\n+            return new EtaResult(EtaStatus.Unknown, null, null);\n+        }\n+\n         var departed = shipment.DepartedAt ?? now;\n-        var profile = shipment.Carrier.TransitProfile;\n+        var profile = carrier.TransitProfile;\n         var days = profile.BaseTransitDays + Surcharge(shipment.Lane);\n         var eta = holidays.AddBusinessDays(departed, days);\n-        return new EtaResult(EtaStatus.Estimated, eta, shipment.Carrier.Code);\n+        return new EtaResult(EtaStatus.Estimated, eta, carrier.Code);\n     }",["src/Fleetwise.Api/Services/EtaCalculator.cs"])
sh("cat src/Fleetwise.Api/Services/EtaResult.cs","namespace Fleetwise.Api.Services;\n\npublic sealed record EtaResult(EtaStatus Status, DateTimeOffset EstimatedArrival, string CarrierCode);\n",0)
patch("*** Update File: src/Fleetwise.Api/Services/EtaResult.cs\n@@\n-public sealed record EtaResult(EtaStatus Status, DateTimeOffset EstimatedArrival, string CarrierCode);\n+public sealed record EtaResult(EtaStatus Status, DateTimeOffset? EstimatedArrival, string? CarrierCode);",["src/Fleetwise.Api/Services/EtaResult.cs"])
# fix several files one by one
for f,ln,old,new in [("src/Fleetwise.Api/Mapping/ShipmentMapping.cs",41,"            CarrierCode = s.Carrier.Code,","            CarrierCode = s.Carrier?.Code,"),
 ("src/Fleetwise.Worker/DispatchWorker.cs",118,"        _logger.LogInformation(\"Carrier {Carrier} assigned\", shipment.Carrier.Code);","        _logger.LogInformation(\"Carrier {Carrier} assigned\", shipment.Carrier?.Code);"),
 ("src/Fleetwise.Api/Endpoints/CarrierEndpoints.cs",66,"            .Where(s => s.Carrier.Active)","            .Where(s => s.Carrier != null && s.Carrier.Active)"),
 ("src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs",140,"        var carrier = shipment.Carrier;","        var carrier = shipment.Carrier; // may be null until dispatch")]:
    sh("sed -n %d,%dp %s"%(ln-3,ln+3,f),"\n".join(["        // context"]*3+[old]+["        // context"]*3),0)
    patch("*** Update File: %s\n@@\n-%s\n+%s"%(f,old,new),[f])
errs2=[e for e in errs if "EtaCalculator" not in e][:24]
sh("dotnet build Fleetwise.sln -c Debug 2>&1 | grep -E 'error|Error' | sort -u","\n".join(errs2)+"\n    %d Error(s)"%len(errs2),1)
say("Down to 24 CS8602 errors; most remaining ones are in the EF configuration, the model snapshot and the tests that build Shipment objects.")
sh("cat src/Fleetwise.Infrastructure/Persistence/Configurations/ShipmentConfiguration.cs","using Fleetwise.Domain.Shipments;\nusing Microsoft.EntityFrameworkCore;\nusing Microsoft.EntityFrameworkCore.Metadata.Builders;\n\nnamespace Fleetwise.Infrastructure.Persistence.Configurations;\n\npublic sealed class ShipmentConfiguration : IEntityTypeConfiguration<Shipment>\n{\n    public void Configure(EntityTypeBuilder<Shipment> b)\n    {\n        b.ToTable(\"shipments\");\n        b.HasKey(s => s.Id);\n        b.Property(s => s.Reference).HasMaxLength(64).IsRequired();\n        b.HasOne(s => s.Carrier).WithMany().HasForeignKey(s => s.CarrierId).IsRequired();\n        b.OwnsOne(s => s.Lane);\n        b.HasMany(s => s.Events).WithOne().HasForeignKey(e => e.ShipmentId);\n    }\n}\n",0)
say("Important: the FK is configured `.IsRequired()`, so despite `Guid?` on the CLR side the column `shipments.carrier_id` is NOT NULL in the database. The EDI importer writes `Guid.Empty` there... Let me check the snapshot.")
snap=["            modelBuilder.Entity(\"Fleetwise.Domain.Shipments.Shipment\", b =>","                {"]+["                    b.Property<%s>(\"%s\")\n                        .HasColumnType(\"%s\");"%(random.choice(["Guid","string","DateTimeOffset","int"]),random.choice(["Id","Reference","CreatedAt","State","DepartedAt"]),random.choice(["uuid","text","timestamp with time zone","integer"])) for _ in range(120)]+["                    b.Property<Guid>(\"CarrierId\")","                        .IsRequired()","                        .HasColumnType(\"uuid\")","                        .HasColumnName(\"carrier_id\");"]
sh("sed -n 400,760p src/Fleetwise.Infrastructure/Persistence/Migrations/FleetwiseDbContextModelSnapshot.cs","\n".join(snap),0)
sh("psql \"$FLEETWISE_DB\" -c '\\d shipments'","                      Table \"public.shipments\"\n   Column    |           Type           | Collation | Nullable | Default\n-------------+--------------------------+-----------+----------+---------\n id          | uuid                     |           | not null |\n reference   | character varying(64)    |           | not null |\n carrier_id  | uuid                     |           | not null |\n departed_at | timestamp with time zone |           |          |\n created_at  | timestamp with time zone |           | not null |\n state       | integer                  |           | not null |\nIndexes:\n    \"pk_shipments\" PRIMARY KEY, btree (id)\n    \"ix_shipments_carrier_id\" btree (carrier_id)\nForeign keys:\n    \"fk_shipments_carriers_carrier_id\" FOREIGN KEY (carrier_id) REFERENCES carriers(id) DEFERRABLE INITIALLY DEFERRED",0)
say("`carrier_id` is NOT NULL in Postgres; the EDI import inserts a placeholder carrier row `00000000-0000-0000-0000-000000000000` (\"UNASSIGNED\"). So with the current schema, a shipment without carrier actually points at the placeholder carrier whose `TransitProfile` is null — line 57 NREs on `.TransitProfile`, not on `.Carrier`. The clean fix is to make the FK optional (migration), which you've ruled out. Without a migration I'd have to special-case the placeholder id in EtaCalculator.")

reason("**Reading the failing test and related types**")
sh("sed -n 40,70p tests/Fleetwise.Api.Tests/Endpoints/ShipmentEtaEndpointTests.cs","    [Fact]\n    public async Task GetEta_ReturnsUnknown_WhenCarrierMissing()\n    {\n        await using var app = new FleetwiseApiFactory();\n        var id = await app.SeedShipmentAsync(carrier: null);\n        var client = app.CreateClient();\n\n        var response = await client.GetAsync($\"/api/shipments/{id}/eta\");\n\n        Assert.Equal(HttpStatusCode.OK, response.StatusCode);\n        var dto = await response.Content.ReadFromJsonAsync<ShipmentEtaDto>();\n        Assert.Equal(\"Unknown\", dto!.Status);\n        Assert.Null(dto.EstimatedArrival);\n        Assert.Null(dto.CarrierCode);\n    }",0)
sh("cat src/Fleetwise.Domain/Carriers/Carriers.cs","namespace Fleetwise.Domain.Carriers;\n\npublic static class Carriers\n{\n    // Placeholder row inserted by migration 20261020101512_AddCarrierProfiles\n    public static readonly Guid UnassignedId = Guid.Empty;\n    public const string UnassignedCode = \"UNASSIGNED\";\n}\n",0)
sh("cat Directory.Build.props","<Project>\n  <PropertyGroup>\n    <LangVersion>12.0</LangVersion>\n    <Nullable>enable</Nullable>\n    <TreatWarningsAsErrors>true</TreatWarningsAsErrors>\n    <WarningsNotAsErrors>CA1848;CA2254;IDE0290;CA1822</WarningsNotAsErrors>\n    <EnforceCodeStyleInBuild>true</EnforceCodeStyleInBuild>\n    <AnalysisLevel>latest-recommended</AnalysisLevel>\n  </PropertyGroup>\n</Project>\n",0)
sh("grep -rn 'UnassignedId\\|UNASSIGNED' src tests --include=*.cs","src/Fleetwise.Domain/Carriers/Carriers.cs:6:    public static readonly Guid UnassignedId = Guid.Empty;\nsrc/Fleetwise.Domain/Carriers/Carriers.cs:7:    public const string UnassignedCode = \"UNASSIGNED\";\nsrc/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs:87:        shipment.CarrierId = shipment.Carrier.Id == Guid.Empty ? Carriers.UnassignedId : row.CarrierId;\nsrc/Fleetwise.Infrastructure/Persistence/Migrations/20261020101512_AddCarrierProfiles.cs:44:                values: new object[] { Guid.Empty, \"UNASSIGNED\", false });\ntests/Fleetwise.Api.Tests/Infrastructure/FleetwiseApiFactory.cs:58:            carrier ??= db.Carriers.Find(Carriers.UnassignedId);",0)
sh("ls src/Fleetwise.Infrastructure/Persistence/Migrations/","20260611084455_Initial.cs\n20260611084455_Initial.Designer.cs\n20260802131020_AddShipmentEvents.cs\n20260802131020_AddShipmentEvents.Designer.cs\n20261020101512_AddCarrierProfiles.cs\n20261020101512_AddCarrierProfiles.Designer.cs\nFleetwiseDbContextModelSnapshot.cs",0)
sh("dotnet --info | head -20",".NET SDK:\n Version:           8.0.404\n Commit:            7b190310f2\n Workload version:  8.0.400-manifests.6c274a57\n MSBuild version:   17.11.9+a69bbaaf5\n\nRuntime Environment:\n OS Name:     ubuntu\n OS Version:  24.04\n OS Platform: Linux\n RID:         linux-x64\n Base Path:   /usr/share/dotnet/sdk/8.0.404/\n\nHost:\n  Version:      8.0.11\n  Architecture: x64",0)
sh("dotnet tool list","Package Id      Version      Commands\n-------------------------------------------\ndotnet-ef       8.0.11       dotnet-ef\ncsharpier       0.29.2       dotnet-csharpier",0)
sh("sed -n 50,66p tests/Fleetwise.Api.Tests/Infrastructure/FleetwiseApiFactory.cs","    public async Task<Guid> SeedShipmentAsync(Carrier? carrier)\n    {\n        using var scope = Services.CreateScope();\n        var db = scope.ServiceProvider.GetRequiredService<FleetwiseDbContext>();\n        await db.Database.EnsureCreatedAsync();\n        var s = new Shipment { Reference = \"T-1\", Lane = Lanes.DeHamToDeMuc };\n        // no carrier: point at the placeholder like the EDI import does\n        carrier ??= db.Carriers.Find(Carriers.UnassignedId);\n        s.Carrier = carrier!;\n        db.Shipments.Add(s);\n        await db.SaveChangesAsync();\n        return s.Id;\n    }",0)
say("The test factory also maps 'no carrier' to the UNASSIGNED placeholder (FleetwiseApiFactory.cs:57-58), with a `carrier!` that will have to go too.")
for k in range(3):
    sh("dotnet test tests/Fleetwise.Api.Tests --filter GetEta_ReturnsUnknown_WhenCarrierMissing","  Determining projects to restore...\n  All projects are up-to-date for restore.\n/home/dev/fleetwise/src/Fleetwise.Infrastructure/Persistence/Configurations/ShipmentConfiguration.cs(14,43): error CS8602: Dereference of a possibly null reference. [/home/dev/fleetwise/src/Fleetwise.Infrastructure/Fleetwise.Infrastructure.csproj]\n\nBuild FAILED.",1)
tokcount()
user("ok, change of plan after talking to the DBA: you may add an EF Core migration that makes shipments.carrier_id nullable (and drops the UNASSIGNED placeholder usage in the importer), but the JSON shape of ShipmentEtaDto must not change — the mobile app deserializes it strictly. Name the migration MakeShipmentCarrierOptional. Everything else I said still applies.")
reason("**New constraint: migration allowed, DTO frozen**")
say("Understood: migration allowed (`MakeShipmentCarrierOptional`), `ShipmentEtaDto` stays byte-for-byte the same, still no warning suppression, no Directory.Build.props change, dotnet format must pass.")
patch("*** Update File: src/Fleetwise.Infrastructure/Persistence/Configurations/ShipmentConfiguration.cs\n@@\n-        b.HasOne(s => s.Carrier).WithMany().HasForeignKey(s => s.CarrierId).IsRequired();\n+        b.HasOne(s => s.Carrier).WithMany().HasForeignKey(s => s.CarrierId).IsRequired(false);",["src/Fleetwise.Infrastructure/Persistence/Configurations/ShipmentConfiguration.cs"])
sh("dotnet ef migrations add MakeShipmentCarrierOptional -p src/Fleetwise.Infrastructure -s src/Fleetwise.Api","Build started...\nBuild failed. Use dotnet-ef's --no-build option or try building the project yourself to see the errors.\n",1)
sh("dotnet build Fleetwise.sln -c Debug 2>&1 | grep -E 'error' | sort -u","\n".join(errs2[:19])+"\n/home/dev/fleetwise/src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs(87,29): error CS8602: Dereference of a possibly null reference. [/home/dev/fleetwise/src/Fleetwise.Infrastructure/Fleetwise.Infrastructure.csproj]",1)
say("`dotnet ef` needs a clean build first, so the remaining CS8602 errors must be fixed before the migration can be generated. One in the importer at `EdiShipmentImporter.cs(87,29)` is where it assigns the UNASSIGNED placeholder.")
sh("sed -n 80,95p src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs","        var shipment = new Shipment\n        {\n            Reference = row.Reference,\n            Lane = lane,\n            CreatedAt = clock.GetUtcNow(),\n        };\n\n        shipment.CarrierId = shipment.Carrier.Id == Guid.Empty ? Carriers.UnassignedId : row.CarrierId;\n        db.Shipments.Add(shipment);",0)
patch("*** Update File: src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs\n@@\n-        shipment.CarrierId = shipment.Carrier.Id == Guid.Empty ? Carriers.UnassignedId : row.CarrierId;\n+        shipment.CarrierId = row.CarrierId == Guid.Empty ? null : row.CarrierId;",["src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs"])
sh("dotnet format Fleetwise.sln --verify-no-changes --no-restore","/home/dev/fleetwise/src/Fleetwise.Api/Services/EtaCalculator.cs(49,1): error WHITESPACE: Fix whitespace formatting. Replace 9 characters with '\\n\\s\\s\\s\\s\\s\\s\\s\\s'. [/home/dev/fleetwise/src/Fleetwise.Api/Fleetwise.Api.csproj]\n/home/dev/fleetwise/src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs(87,9): error IDE0055: Fix formatting [/home/dev/fleetwise/src/Fleetwise.Infrastructure/Fleetwise.Infrastructure.csproj]",2)
say("`dotnet format` flags whitespace in EtaCalculator.cs(49) and IDE0055 in the importer; I'll run `dotnet format` (without --verify) at the end once the code compiles. Remaining: ~19 CS8602 errors (mapping, worker, tests), then `dotnet ef migrations add MakeShipmentCarrierOptional`, then tests.")
sh("git status --short"," M src/Fleetwise.Api/Mapping/ShipmentMapping.cs\n M src/Fleetwise.Api/Services/EtaCalculator.cs\n M src/Fleetwise.Api/Services/EtaResult.cs\n M src/Fleetwise.Api/Endpoints/CarrierEndpoints.cs\n M src/Fleetwise.Domain/Shipments/Shipment.cs\n M src/Fleetwise.Infrastructure/Edi/EdiShipmentImporter.cs\n M src/Fleetwise.Infrastructure/Persistence/Configurations/ShipmentConfiguration.cs\n M src/Fleetwise.Worker/DispatchWorker.cs",0)
sh("git diff --stat"," 8 files changed, 27 insertions(+), 14 deletions(-)",0)
tokcount()
user("I need to hand this over to someone else now. Whoever picks it up: finish it — fix the remaining CS8602 errors properly, generate the migration, make GetEta_ReturnsUnknown_WhenCarrierMissing pass with the whole suite green, and get dotnet format clean. Keep to the limits I gave you.")
with open(OUT,"w") as f:
    for d in L: f.write(json.dumps(d,ensure_ascii=False)+"\n")
print(OUT,len(L),n[0])
