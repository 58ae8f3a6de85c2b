import json, random, uuid, datetime
random.seed(11)
OUT="/work/tuneset-I/claude-code-php-symfony-invoice-reminder-retries.jsonl"
CWD="/home/dev/invoicing"; SID="5b7e2c91-0d4a-4f3b-9e61-7a2c44d8f0b3"
t0=datetime.datetime(2026,12,3,14,2,11)
lines=[]; state={"parent":None,"n":0,"t":t0}
def ts():
    state["t"]+=datetime.timedelta(seconds=random.randint(3,40)); return state["t"].strftime("%Y-%m-%dT%H:%M:%S.")+"%03dZ"%random.randint(0,999)
def base(typ):
    state["n"]+=1; u="e4c1%04x-7a1b-4c2d-9e0f-%012x"%(state["n"],state["n"]*7919)
    d={"parentUuid":state["parent"],"isSidechain":False,"userType":"external","cwd":CWD,"sessionId":SID,"version":"1.0.112","gitBranch":"fix/reminder-retries","type":typ,"uuid":u,"timestamp":ts()}
    state["parent"]=u; return d
def user(text):
    d=base("user"); d["message"]={"role":"user","content":text}; lines.append(d)
def asst(block):
    d=base("assistant"); state["n"]
    d["message"]={"id":"msg_01%016x"%random.getrandbits(60),"type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[block],"stop_reason":"tool_use" if block["type"]=="tool_use" else None,"stop_sequence":None,"usage":{"input_tokens":random.randint(3,9),"cache_creation_input_tokens":random.randint(200,4000),"cache_read_input_tokens":random.randint(20000,90000),"output_tokens":random.randint(40,900),"service_tier":"standard"}}
    d["requestId"]="req_011C%014x"%random.getrandbits(56); lines.append(d)
def text(t): asst({"type":"text","text":t})
def think(t): asst({"type":"thinking","thinking":t,"signature":"Eq"+"%030x"%random.getrandbits(120)})
cnt=[0]
def tool(name,inp,result,tur=None,err=False):
    cnt[0]+=1; tid="toolu_01%020x"%random.getrandbits(80)
    asst({"type":"tool_use","id":tid,"name":name,"input":inp})
    d=base("user"); c={"tool_use_id":tid,"type":"tool_result","content":result}
    if err: c["is_error"]=True
    d["message"]={"role":"user","content":[c]}
    d["toolUseResult"]=tur if tur is not None else result
    lines.append(d)
def bash(cmd,out,code=0,desc=None):
    res=out if code==0 else "Error: Exit code %d\n%s"%(code,out)
    tool("Bash",{"command":cmd,"description":desc or cmd[:40]},res,
         {"stdout":out,"stderr":"","interrupted":False,"isImage":False} if code==0 else "Error: Exit code %d\n%s"%(code,out),err=(code!=0))
def numbered(content,start=1):
    return "\n".join("%6d\u2192%s"%(i+start,l) for i,l in enumerate(content.split("\n")))
def read(path,content):
    tool("Read",{"file_path":CWD+"/"+path},numbered(content),{"type":"text","file":{"filePath":CWD+"/"+path,"content":content,"numLines":content.count("\n")+1,"startLine":1,"totalLines":content.count("\n")+1}})
def edit(path,old,new,orig):
    tool("Edit",{"file_path":CWD+"/"+path,"old_string":old,"new_string":new},
         "The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s"%(CWD+"/"+path,numbered(new,40)),
         {"filePath":CWD+"/"+path,"oldString":old,"newString":new,"originalFile":orig,"structuredPatch":[{"oldStart":40,"oldLines":old.count("\n")+1,"newStart":40,"newLines":new.count("\n")+1,"lines":["-"+l for l in old.split("\n")]+["+"+l for l in new.split("\n")]}],"userModified":False,"replaceAll":False})
def meta(d): lines.append(d)

meta({"type":"summary","summary":"Invoice reminder sent twice on Messenger retry","leafUuid":"e4c10000-7a1b-4c2d-9e0f-000000000000"})
meta({"type":"file-history-snapshot","messageId":"snap0001","snapshot":{"messageId":"snap0001","trackedFileBackups":{},"timestamp":"2026-12-03T14:02:00.000Z"},"isSnapshotUpdate":False})

TASK=("Customers are getting the payment reminder email two or three times, and some get it even after they paid. "
"It comes from the Messenger handler App\\MessageHandler\\SendInvoiceReminderHandler (async transport, retries on SMTP timeouts). "
"CI is also red: PHPUnit has a failing test in tests/MessageHandler/ and PHPStan level 8 complains. Please fix it.\n\n"
"Rules: do not touch anything in migrations/ (prod DB schema is frozen this sprint), never add entries to phpstan-baseline.neon, "
"and keep InvoiceRepository's public methods as they are — the billing-export bundle calls them.")
user(TASK)
think("Start by running the test suite to find the failing test, then PHPStan, then look at the handler and the retry config.")
text("I'll start by running the PHPUnit suite to see what's failing.")

# --- flood 1: phpunit full run
tests=["Controller\\InvoiceControllerTest","Controller\\CustomerControllerTest","Entity\\InvoiceTest","Entity\\CustomerTest","Service\\TaxCalculatorTest","Service\\PdfRendererTest","Repository\\InvoiceRepositoryTest","MessageHandler\\SendInvoiceReminderHandlerTest","MessageHandler\\ExportInvoicesHandlerTest","Command\\ScheduleRemindersCommandTest","Security\\InvoiceVoterTest","Form\\InvoiceTypeTest"]
def phpunit_run(fails=True):
    o=["PHPUnit 10.5.38 by Sebastian Bergmann and contributors.","","Runtime:       PHP 8.3.14","Configuration: /home/dev/invoicing/phpunit.xml.dist",""]
    dots="".join(random.choice("..........D.S") for _ in range(612))
    if fails: dots=dots[:431]+"F"+dots[432:]
    for i in range(0,len(dots),63): o.append(dots[i:i+63]+"  %d / 612 (%d%%)"%(min(i+63,612),min(i+63,612)*100//612))
    o+=["","Time: 00:41.882, Memory: 212.50 MB",""]
    if fails:
        o+=["There was 1 failure:","","1) App\\Tests\\MessageHandler\\SendInvoiceReminderHandlerTest::testSkipsInvoicesAlreadyPaid",
            "Failed asserting that actual size 1 matches expected size 0.","","/home/dev/invoicing/tests/MessageHandler/SendInvoiceReminderHandlerTest.php:77",""]
    o+=["--","","There were 38 PHPUnit deprecations:",""]
    for k in range(38):
        o+=["%d) %s::test%s"%(k+1,"App\\Tests\\"+random.choice(tests),random.choice(["Create","Update","Render","Totals","Vat","Access","Submit","List"])+str(random.randint(1,9))),
            "Since symfony/framework-bundle 7.1: Not setting the \"property_info.with_constructor_extractor\" option explicitly is deprecated because its default value will change in version 8.0.",""]
    o+=["Remaining indirect deprecation notices (%d)"%random.randint(300,400),""]
    for k in range(30):
        o.append("  %dx: Since doctrine/doctrine-bundle 2.13: Enabling the controller resolver automapping feature has been deprecated."%random.randint(1,40))
        o.append("    %dx in %s::test%s from App\\Tests\\%s"%(random.randint(1,9),random.choice(tests).split("\\")[1],random.choice(["Create","List","Show","Edit"]),random.choice(tests).split("\\")[0]))
    o+=["",("FAILURES!\nTests: 612, Assertions: 1874, Failures: 1, Deprecations: 38, Skipped: 9." if fails else "OK, but there were issues!\nTests: 612, Assertions: 1874, Deprecations: 38, Skipped: 9.")]
    return "\n".join(o)
bash("php bin/phpunit",phpunit_run(),1,"Run the full PHPUnit suite")
text("One failure: `SendInvoiceReminderHandlerTest::testSkipsInvoicesAlreadyPaid` at line 77. Now PHPStan.")
# phpstan raw
ps=["src/MessageHandler/SendInvoiceReminderHandler.php:48:Cannot call method getEmail() on App\\Entity\\Customer|null.",
"src/MessageHandler/SendInvoiceReminderHandler.php:61:Parameter #1 $invoice of method App\\Mailer\\ReminderMailer::send() expects App\\Entity\\Invoice, App\\Entity\\Invoice|null given."]
bash("vendor/bin/phpstan analyse --error-format=raw --no-progress --memory-limit=1G",
 "Note: Using configuration file /home/dev/invoicing/phpstan.dist.neon.\n"+"\n".join(ps)+"\n [ERROR] Found 2 errors",1,"PHPStan level 8, raw output")
text("Two PHPStan errors, both in the handler (lines 48 and 61). Let me check the worker log for the duplicate sends.")
# stale error in worker log
log=[]
for i in range(180):
    h=14; m=i//4
    lvl=random.choice(["INFO","INFO","INFO","DEBUG"])
    log.append("[2026-12-02T%02d:%02d:%02d.%03d+00:00] messenger.%s: Received message App\\Message\\SendInvoiceReminder {\"class\":\"App\\\\Message\\\\SendInvoiceReminder\",\"message_id\":%d} []"%(9+m//60,m%60,random.randint(0,59),random.randint(0,999),lvl,40000+i))
    if i%13==5:
        log.append("[2026-12-02T%02d:%02d:%02d.000+00:00] messenger.WARNING: Error thrown while handling message App\\Message\\SendInvoiceReminder. Sending for retry #1 using 2000 ms delay. Error: \"Connection to \"smtp.mailgun.org:587\" timed out.\" {\"retryCount\":1,\"delay\":2000} []"%(9+m//60,m%60,random.randint(0,59)))
    if i==22:
        log.append("[2026-12-02T09:05:51.114+00:00] messenger.CRITICAL: Error thrown while handling message App\\Message\\SendInvoiceReminder. Removing from transport after 3 retries. Error: \"Attempted to call an undefined method named \"getDueDate\" of class \"App\\Entity\\Invoice\".\" at src/MessageHandler/SendInvoiceReminderHandler.php line 41 []")
    log.append("[2026-12-02T%02d:%02d:%02d.%03d+00:00] app.INFO: Reminder mail queued for invoice %d {\"channel\":\"mailer\"} []"%(9+m//60,m%60,random.randint(0,59),random.randint(0,999),8800+i%40))
bash("tail -n 600 var/log/worker-2026-12-02.log","\n".join(log),0,"Worker log")
text("The log shows a CRITICAL `Attempted to call an undefined method named \"getDueDate\"` at handler line 41, and many SMTP-timeout retries followed by a second 'Reminder mail queued' for the same invoice. Let me read the handler.")
HANDLER="""<?php

declare(strict_types=1);

namespace App\\MessageHandler;

use App\\Entity\\Invoice;
use App\\Mailer\\ReminderMailer;
use App\\Message\\SendInvoiceReminder;
use App\\Repository\\InvoiceRepository;
use Psr\\Log\\LoggerInterface;
use Symfony\\Component\\Clock\\ClockInterface;
use Symfony\\Component\\Messenger\\Attribute\\AsMessageHandler;

#[AsMessageHandler]
final class SendInvoiceReminderHandler
{
    public function __construct(
        private readonly InvoiceRepository $invoices,
        private readonly ReminderMailer $mailer,
        private readonly ClockInterface $clock,
        private readonly LoggerInterface $logger,
    ) {
    }

    public function __invoke(SendInvoiceReminder $message): void
    {
        $invoice = $this->invoices->find($message->invoiceId);
        if (null === $invoice) {
            $this->logger->warning('Invoice {id} vanished before reminder', ['id' => $message->invoiceId]);
        }

        $now = $this->clock->now();
        // Only remind once the due date has passed
        if ($invoice->getDueAt() > $now) {
            return;
        }

        $this->logger->info('Sending reminder for invoice {id}', ['id' => $invoice->getId()]);

        $due = $invoice->getDueAt();
        $daysLate = $due->diff($now)->days;

        $customer = $invoice->getCustomer();
        $to = $customer->getEmail();

        $this->mailer->send($invoice, $to, $daysLate);
    }
}
"""
# pad handler to look like line numbers match roughly
read("src/MessageHandler/SendInvoiceReminderHandler.php",HANDLER)
bash("git log --oneline -8 -- src/MessageHandler/SendInvoiceReminderHandler.php",
"a91c3e0 Rename Invoice::getDueDate() to getDueAt() everywhere\n77d02bb Log reminder sends\n3f0e1aa Inject ClockInterface into reminder handler\nc4410de Add SendInvoiceReminder message + handler\n",0,"History of the handler")
text("The `getDueDate` CRITICAL in the log is from before commit a91c3e0 (deployed yesterday afternoon); the current code already uses `getDueAt()`, so that error is stale. The real problems: the handler never checks whether the invoice is paid, and there is nothing that records a reminder was sent, so a retry after an SMTP timeout *after* the mail went out sends it again.")
TEST="""<?php

declare(strict_types=1);

namespace App\\Tests\\MessageHandler;

use App\\Entity\\Customer;
use App\\Entity\\Invoice;
use App\\Enum\\InvoiceStatus;
use App\\Mailer\\ReminderMailer;
use App\\Message\\SendInvoiceReminder;
use App\\MessageHandler\\SendInvoiceReminderHandler;
use App\\Repository\\InvoiceRepository;
use PHPUnit\\Framework\\TestCase;
use Psr\\Log\\NullLogger;
use Symfony\\Component\\Clock\\MockClock;

final class SendInvoiceReminderHandlerTest extends TestCase
{
    private MockClock $clock;
    /** @var list<array{Invoice, string, int}> */
    private array $sent = [];

    protected function setUp(): void
    {
        $this->clock = new MockClock('2026-12-01 10:00:00');
    }
""" + "\n".join("    // fixture helper line %d"%i for i in range(20)) + """

    public function testSendsReminderForOverdueInvoice(): void
    {
        $invoice = $this->invoice(InvoiceStatus::Open, '2026-11-20');
        $this->handler($invoice)(new SendInvoiceReminder(42));
        self::assertCount(1, $this->sent);
    }

    public function testSkipsInvoicesAlreadyPaid(): void
    {
        $invoice = $this->invoice(InvoiceStatus::Paid, '2026-11-20');
        $this->handler($invoice)(new SendInvoiceReminder(42));
        self::assertCount(0, $this->sent);
    }

    public function testDoesNotSendTwiceOnRetry(): void
    {
        $invoice = $this->invoice(InvoiceStatus::Open, '2026-11-20');
        $handler = $this->handler($invoice);
        $handler(new SendInvoiceReminder(42));
        $handler(new SendInvoiceReminder(42));
        self::assertCount(1, $this->sent);
        self::markTestIncomplete('needs a persisted marker, see #412');
    }
}
"""
read("tests/MessageHandler/SendInvoiceReminderHandlerTest.php",TEST)
# flood: Invoice entity long read
ent=["<?php","","declare(strict_types=1);","","namespace App\\Entity;","","use App\\Enum\\InvoiceStatus;","use App\\Repository\\InvoiceRepository;","use Doctrine\\DBAL\\Types\\Types;","use Doctrine\\ORM\\Mapping as ORM;","","#[ORM\\Entity(repositoryClass: InvoiceRepository::class)]","#[ORM\\Table(name: 'invoice')]","class Invoice","{"]
fields=[("id","int","Types::INTEGER"),("number","string","Types::STRING"),("customer","?Customer",None),("status","InvoiceStatus","Types::STRING"),("issuedAt","\\DateTimeImmutable","Types::DATETIME_IMMUTABLE"),("dueAt","\\DateTimeImmutable","Types::DATETIME_IMMUTABLE"),("paidAt","?\\DateTimeImmutable","Types::DATETIME_IMMUTABLE"),("currency","string","Types::STRING"),("netAmount","string","Types::DECIMAL"),("taxAmount","string","Types::DECIMAL"),("grossAmount","string","Types::DECIMAL"),("notes","?string","Types::TEXT"),("pdfPath","?string","Types::STRING"),("exportedAt","?\\DateTimeImmutable","Types::DATETIME_IMMUTABLE"),("createdAt","\\DateTimeImmutable","Types::DATETIME_IMMUTABLE"),("updatedAt","\\DateTimeImmutable","Types::DATETIME_IMMUTABLE")]
for f,ty,dt in fields:
    if dt: ent+=["    #[ORM\\Column(type: %s%s)]"%(dt,", nullable: true" if ty.startswith("?") else ""),"    private %s $%s%s;"%(ty,f," = null" if ty.startswith("?") else ""),""]
    else: ent+=["    #[ORM\\ManyToOne(targetEntity: Customer::class, inversedBy: 'invoices')]","    #[ORM\\JoinColumn(nullable: true)]","    private ?Customer $customer = null;",""]
ent+=["    /** @var Collection<int, InvoiceLine> */","    #[ORM\\OneToMany(targetEntity: InvoiceLine::class, mappedBy: 'invoice', cascade: ['persist'], orphanRemoval: true)]","    private Collection $lines;",""]
for f,ty,dt in fields:
    U=f[0].upper()+f[1:]
    ent+=["    public function get%s(): %s"%(U,ty),"    {","        return $this->%s;"%f,"    }",""]
    if f!="id": ent+=["    public function set%s(%s $%s): static"%(U,ty,f),"    {","        $this->%s = $%s;"%(f,f),"        $this->updatedAt = new \\DateTimeImmutable();","","        return $this;","    }",""]
ent+=["    public function isPaid(): bool","    {","        return InvoiceStatus::Paid === $this->status || null !== $this->paidAt;","    }","","    public function isOverdue(\\DateTimeInterface $now): bool","    {","        return !$this->isPaid() && $this->dueAt < $now;","    }","}"]
ENTITY="\n".join(ent)
read("src/Entity/Invoice.php",ENTITY)
text("`Invoice::isPaid()` already exists (status Paid or paidAt set). There is no column that records when a reminder went out.")
REPO_METHODS=["find","findDueForReminder","findOpenByCustomer","findForExport","countOverdue","sumOutstandingByCurrency","findByNumber","markExported"]
repo="<?php\n\nnamespace App\\Repository;\n\n/** @extends ServiceEntityRepository<Invoice> */\nclass InvoiceRepository extends ServiceEntityRepository\n{\n"+"".join("    public function %s(...)\n    {\n        // %d lines of QueryBuilder\n    }\n\n"%(m,random.randint(8,30)) for m in REPO_METHODS[1:])+"}"
bash("grep -n 'public function' src/Repository/InvoiceRepository.php","\n".join("%d:    public function %s("%(20+i*17,m) for i,m in enumerate(REPO_METHODS[1:])),0,"Public repository methods")
# flood: grep many hits
hits=[]
files=["src/Controller/InvoiceController.php","src/Service/InvoiceExporter.php","src/Service/TaxCalculator.php","templates/invoice/show.html.twig","templates/invoice/list.html.twig","src/Form/InvoiceType.php","tests/Controller/InvoiceControllerTest.php","src/Command/ScheduleRemindersCommand.php","src/Security/InvoiceVoter.php","src/Twig/InvoiceExtension.php","translations/messages+intl-icu.en.yaml","translations/messages+intl-icu.de.yaml","src/EventSubscriber/InvoicePaidSubscriber.php","config/packages/messenger.yaml","src/DataFixtures/InvoiceFixtures.php"]
for i in range(260):
    f=random.choice(files); hits.append("%s:%d:%s"%(f,random.randint(5,400),random.choice(["        $invoice = $this->invoices->find($id);","    public function show(Invoice $invoice): Response","{{ invoice.number }} — {{ invoice.dueAt|date('d.m.Y') }}","        $invoice->setStatus(InvoiceStatus::Paid);","        if ($invoice->isOverdue($now)) {","invoice.reminder.subject: 'Payment reminder for invoice {number}'","            'invoice' => $invoice,","        $this->bus->dispatch(new SendInvoiceReminder($invoice->getId()));","    /** @param list<Invoice> $invoices */","        foreach ($invoices as $invoice) {"])))
bash("grep -rn 'nvoice' src templates translations tests config | grep -v vendor | head -400","\n".join(hits),0,"Find Invoice usages")
text("The reminders are dispatched by `ScheduleRemindersCommand` (cron, daily) and `InvoicePaidSubscriber` never touches reminders. Let me look at the messenger config for the retry strategy.")
read("config/packages/messenger.yaml","""framework:
    messenger:
        failure_transport: failed
        transports:
            async:
                dsn: '%env(MESSENGER_TRANSPORT_DSN)%'
                retry_strategy:
                    max_retries: 3
                    delay: 2000
                    multiplier: 2
            failed: 'doctrine://default?queue_name=failed'
        routing:
            App\\Message\\SendInvoiceReminder: async
            App\\Message\\ExportInvoices: async
""")
read("src/Message/SendInvoiceReminder.php","""<?php

declare(strict_types=1);

namespace App\\Message;

final class SendInvoiceReminder
{
    public function __construct(
        public readonly int $invoiceId,
    ) {
    }
}
""")

# --- exploration steps
read("src/Command/ScheduleRemindersCommand.php","<?php\n\nnamespace App\\Command;\n\n#[AsCommand(name: 'app:reminders:schedule', description: 'Queue payment reminders for overdue invoices')]\nfinal class ScheduleRemindersCommand extends Command\n{\n    public function __construct(private InvoiceRepository $invoices, private MessageBusInterface $bus, private ClockInterface $clock)\n    {\n        parent::__construct();\n    }\n\n    protected function execute(InputInterface $input, OutputInterface $output): int\n    {\n        foreach ($this->invoices->findDueForReminder($this->clock->now()) as $invoice) {\n            $this->bus->dispatch(new SendInvoiceReminder($invoice->getId()));\n        }\n\n        return Command::SUCCESS;\n    }\n}\n")
bash("sed -n 20,45p src/Repository/InvoiceRepository.php","20:    public function findDueForReminder(\\DateTimeImmutable $now): array\n21:    {\n22:        return $this->createQueryBuilder('i')\n23:            ->andWhere('i.dueAt < :now')\n24:            ->andWhere('i.status = :open')\n25:            ->setParameter('now', $now)\n26:            ->setParameter('open', InvoiceStatus::Open)\n27:            ->getQuery()\n28:            ->getResult();\n29:    }",0,"findDueForReminder body")
text("`findDueForReminder()` filters on status Open at scheduling time, but the cron runs at 06:00 and messages sit in the queue; an invoice paid between dispatch and handling still gets a reminder. So the handler must re-check `isPaid()` itself.")
read("src/EventSubscriber/InvoicePaidSubscriber.php","<?php\n\nnamespace App\\EventSubscriber;\n\nfinal class InvoicePaidSubscriber implements EventSubscriberInterface\n{\n    public static function getSubscribedEvents(): array\n    {\n        return [InvoicePaidEvent::class => 'onPaid'];\n    }\n\n    public function onPaid(InvoicePaidEvent $event): void\n    {\n        $event->invoice->setPaidAt($event->paidAt);\n        $event->invoice->setStatus(InvoiceStatus::Paid);\n    }\n}\n")
read("phpstan.dist.neon","includes:\n    - phpstan-baseline.neon\n    - vendor/phpstan/phpstan-symfony/extension.neon\n    - vendor/phpstan/phpstan-doctrine/extension.neon\n\nparameters:\n    level: 8\n    paths:\n        - src\n        - tests\n    symfony:\n        containerXmlPath: var/cache/dev/App_KernelDevDebugContainer.xml\n    doctrine:\n        objectManagerLoader: tests/object-manager.php\n")
bash("wc -l phpstan-baseline.neon && grep -c 'message:' phpstan-baseline.neon","  412 phpstan-baseline.neon\n103",0,"Baseline size")
text("The baseline already has 103 entries; per your rule I won't add any — both handler errors have to be fixed in code.")
read("src/Entity/Customer.php","<?php\n\nnamespace App\\Entity;\n\n#[ORM\\Entity(repositoryClass: CustomerRepository::class)]\nclass Customer\n{\n    #[ORM\\Id, ORM\\GeneratedValue, ORM\\Column]\n    private ?int $id = null;\n\n    #[ORM\\Column(length: 180)]\n    private string $email;\n\n    #[ORM\\Column(length: 255)]\n    private string $name;\n\n    /** @var Collection<int, Invoice> */\n    #[ORM\\OneToMany(targetEntity: Invoice::class, mappedBy: 'customer')]\n    private Collection $invoices;\n\n    public function getEmail(): string\n    {\n        return $this->email;\n    }\n}\n")
bash("php bin/console debug:messenger","Messenger\n=========\n\nmessenger.bus.default\n---------------------\n\n The following messages can be dispatched:\n\n ---------------------------------------------------------- \n  App\\Message\\SendInvoiceReminder                          \n      handled by App\\MessageHandler\\SendInvoiceReminderHandler  \n  App\\Message\\ExportInvoices                               \n      handled by App\\MessageHandler\\ExportInvoicesHandler       \n  Symfony\\Component\\Mailer\\Messenger\\SendEmailMessage       \n      handled by mailer.messenger.message_handler              \n ---------------------------------------------------------- ",0,"Messenger routing")
bash("php bin/console messenger:stats","---------- -------\n Transport  Count\n---------- -------\n async      4127\n failed     212\n---------- -------",0,"Queue sizes")
text("4,127 messages are queued on `async` and 212 in `failed` — so whatever I change must keep deserializing the existing `SendInvoiceReminder` payloads.")
bash("php bin/console messenger:failed:show --max=5","There are 212 messages pending in the failure transport.\n ---- -------------------------------------- --------------------- ---------------------------------------------------------\n  Id   Class                                  Failed at             Error\n ---- -------------------------------------- --------------------- ---------------------------------------------------------\n  901  App\\Message\\SendInvoiceReminder       2026-12-02 09:05:51   Attempted to call an undefined method named \"getDueDate\"\n  902  App\\Message\\SendInvoiceReminder       2026-12-02 09:05:53   Attempted to call an undefined method named \"getDueDate\"\n  903  App\\Message\\SendInvoiceReminder       2026-12-02 09:06:10   Connection to \"smtp.mailgun.org:587\" timed out.\n  904  App\\Message\\SendInvoiceReminder       2026-12-02 09:06:12   Connection to \"smtp.mailgun.org:587\" timed out.\n  905  App\\Message\\SendInvoiceReminder       2026-12-02 09:07:31   Connection to \"smtp.mailgun.org:587\" timed out.\n ---- -------------------------------------- --------------------- ---------------------------------------------------------",0,"Failed messages")
bash("git log --oneline -5","a91c3e0 Rename Invoice::getDueDate() to getDueAt() everywhere\n5d2e871 Bump symfony/* to 7.1.9\n77d02bb Log reminder sends\n0c9a3f2 Invoice PDF: embed fonts\n3f0e1aa Inject ClockInterface into reminder handler",0,"Recent commits")
bash("grep -rn 'getDueDate' src tests || echo 'no matches'","no matches",0,"Any remaining getDueDate")
text("Confirmed: nothing calls `getDueDate` anymore; the failed-transport entries for it are leftovers from before a91c3e0.")

read("src/Mailer/ReminderMailer.php","<?php\n\nnamespace App\\Mailer;\n\nfinal class ReminderMailer\n{\n    public function __construct(private MailerInterface $mailer, private Environment $twig) {}\n\n    public function send(Invoice $invoice, string $to, int $daysLate): void\n    {\n        $email = (new TemplatedEmail())\n            ->to($to)\n            ->subject('Payment reminder '.$invoice->getNumber())\n            ->htmlTemplate('emails/reminder.html.twig')\n            ->context(['invoice' => $invoice, 'daysLate' => $daysLate]);\n\n        $this->mailer->send($email);\n    }\n}\n")
think("Mailer send is synchronous inside the handler; if SMTP times out after accepting, Messenger retries and re-sends. Need an idempotency marker. Options: DB column (migration, forbidden), cache pool, or Messenger DeduplicateStamp (Symfony 7.3 lock based, only dedupes while queued). Since migrations are frozen, try a cache pool marker keyed by invoice id.")
text("Because migrations are off-limits, I'll first fix the paid check and the null handling, and record sent reminders in a dedicated cache pool (`reminder.sent_pool`, keyed by invoice id) instead of a DB column.")
H1=HANDLER
new_invoke="""        $invoice = $this->invoices->find($message->invoiceId);
        if (null === $invoice) {
            $this->logger->warning('Invoice {id} vanished before reminder', ['id' => $message->invoiceId]);

            return;
        }

        if ($invoice->isPaid()) {
            return;
        }"""
old_invoke="""        $invoice = $this->invoices->find($message->invoiceId);
        if (null === $invoice) {
            $this->logger->warning('Invoice {id} vanished before reminder', ['id' => $message->invoiceId]);
        }"""
edit("src/MessageHandler/SendInvoiceReminderHandler.php",old_invoke,new_invoke,H1)
H2=H1.replace(old_invoke,new_invoke)
old_c="""        $customer = $invoice->getCustomer();
        $to = $customer->getEmail();

        $this->mailer->send($invoice, $to, $daysLate);"""
new_c="""        $customer = $invoice->getCustomer();
        if (null === $customer) {
            $this->logger->error('Invoice {id} has no customer, cannot remind', ['id' => $invoice->getId()]);

            return;
        }

        $marker = $this->sentPool->getItem('reminder_'.$invoice->getId());
        if ($marker->isHit()) {
            return;
        }

        $this->mailer->send($invoice, $customer->getEmail(), $daysLate);
        $this->sentPool->save($marker->set($now->format(DATE_ATOM)));"""
edit("src/MessageHandler/SendInvoiceReminderHandler.php",old_c,new_c,H2)
H3=H2.replace(old_c,new_c)
old_ctor="""        private readonly LoggerInterface $logger,
    ) {"""
new_ctor="""        private readonly LoggerInterface $logger,
        #[Autowire(service: 'reminder.sent_pool')]
        private readonly CacheItemPoolInterface $sentPool,
    ) {"""
edit("src/MessageHandler/SendInvoiceReminderHandler.php",old_ctor,new_ctor,H3)
H4=H3.replace(old_ctor,new_ctor)
tool("Edit",{"file_path":CWD+"/config/packages/cache.yaml","old_string":"        pools:\n","new_string":"        pools:\n            reminder.sent_pool:\n                adapter: cache.adapter.redis\n                default_lifetime: 2592000\n"},"The file /home/dev/invoicing/config/packages/cache.yaml has been updated.",{"filePath":CWD+"/config/packages/cache.yaml","oldString":"        pools:\n","newString":"        pools:\n            reminder.sent_pool:\n                adapter: cache.adapter.redis\n                default_lifetime: 2592000\n","originalFile":"framework:\n    cache:\n        app: cache.adapter.redis\n        pools:\n","structuredPatch":[],"userModified":False,"replaceAll":False})
bash("php bin/phpunit tests/MessageHandler","PHPUnit 10.5.38 by Sebastian Bergmann and contributors.\n\nRuntime:       PHP 8.3.14\n\n..I                                                                  3 / 3 (100%)\n\nTime: 00:00.212, Memory: 24.00 MB\n\nOK, but incomplete, skipped, or risky tests!\nTests: 3, Assertions: 4, Incomplete: 1.",0,"Handler tests")
bash("vendor/bin/phpstan analyse --error-format=raw --no-progress --memory-limit=1G","Note: Using configuration file /home/dev/invoicing/phpstan.dist.neon.\n\n [OK] No errors",0,"PHPStan again")
text("Handler tests pass and PHPStan is clean. The dedupe marker lives in the `reminder.sent_pool` Redis pool for 30 days.")
user("No, not the cache. We run `cache:pool:clear --all` on every deploy and Redis is evicted under memory pressure — a marker that can disappear will double-send again, that's exactly the bug. Undo the cache pool approach.")
think("User rejects the cache approach. Revert the cache pieces (pool config, sentPool injection, marker) but keep the paid/null checks which are fine.")
text("Understood — reverting the cache-pool marker. I'll keep the null-invoice early return, the `isPaid()` check and the null-customer guard, and drop the pool.")
bash("git checkout -- config/packages/cache.yaml && git diff --stat","src/MessageHandler/SendInvoiceReminderHandler.php | 22 +++++++++++++++++++---\n 1 file changed, 19 insertions(+), 3 deletions(-)",0,"Revert cache.yaml")
edit("src/MessageHandler/SendInvoiceReminderHandler.php",new_ctor,old_ctor,H4)
H5=H4.replace(new_ctor,old_ctor)
old_m="""        $marker = $this->sentPool->getItem('reminder_'.$invoice->getId());
        if ($marker->isHit()) {
            return;
        }

        $this->mailer->send($invoice, $customer->getEmail(), $daysLate);
        $this->sentPool->save($marker->set($now->format(DATE_ATOM)));"""
new_m="""        $this->mailer->send($invoice, $customer->getEmail(), $daysLate);"""
edit("src/MessageHandler/SendInvoiceReminderHandler.php",old_m,new_m,H5)
H6=H5.replace(old_m,new_m)
bash("git diff src/MessageHandler/SendInvoiceReminderHandler.php",
"diff --git a/src/MessageHandler/SendInvoiceReminderHandler.php b/src/MessageHandler/SendInvoiceReminderHandler.php\nindex 3be19c2..0d7a4f1 100644\n--- a/src/MessageHandler/SendInvoiceReminderHandler.php\n+++ b/src/MessageHandler/SendInvoiceReminderHandler.php\n@@ -28,6 +28,12 @@ final class SendInvoiceReminderHandler\n         $invoice = $this->invoices->find($message->invoiceId);\n         if (null === $invoice) {\n             $this->logger->warning('Invoice {id} vanished before reminder', ['id' => $message->invoiceId]);\n+\n+            return;\n+        }\n+\n+        if ($invoice->isPaid()) {\n+            return;\n         }\n@@ -43,7 +49,12 @@ final class SendInvoiceReminderHandler\n         $customer = $invoice->getCustomer();\n-        $to = $customer->getEmail();\n-\n-        $this->mailer->send($invoice, $to, $daysLate);\n+        if (null === $customer) {\n+            $this->logger->error('Invoice {id} has no customer, cannot remind', ['id' => $invoice->getId()]);\n+\n+            return;\n+        }\n+\n+        $this->mailer->send($invoice, $customer->getEmail(), $daysLate);\n",0,"Show remaining diff")
text("The cache approach is gone. Without a persisted marker, `testDoesNotSendTwiceOnRetry` can't really be satisfied (it's marked incomplete with a pointer to #412). The durable option is a column on `invoice`, which needs a migration — which you've ruled out. Alternatives without schema change: dispatching the mail itself as a separate message (Symfony Mailer's `SendEmailMessage`) so the SMTP retry doesn't re-run the handler. Let me check how the mailer transport is set up.")
# flood: composer dependency tree
deps=["symfony/framework-bundle v7.1.9","doctrine/orm 3.3.1","doctrine/doctrine-bundle 2.13.1","doctrine/doctrine-migrations-bundle 3.3.1","symfony/messenger v7.1.9","symfony/mailer v7.1.9","symfony/mailgun-mailer v7.1.6","symfony/twig-bundle v7.1.6","symfony/security-bundle v7.1.9","symfony/clock v7.1.6","phpstan/phpstan 1.12.11","phpunit/phpunit 10.5.38","dompdf/dompdf v3.0.1","symfony/monolog-bundle v3.10.0"]
subs=["psr/log 3.0.2","psr/container 2.0.2","symfony/deprecation-contracts v3.5.1","symfony/polyfill-mbstring v1.31.0","symfony/polyfill-php83 v1.31.0","symfony/service-contracts v3.5.1","symfony/event-dispatcher v7.1.6","symfony/var-exporter v7.1.6","doctrine/dbal 4.2.1","doctrine/persistence 3.4.0","doctrine/event-manager 2.0.1","doctrine/collections 2.2.2","symfony/cache v7.1.9","symfony/config v7.1.7","symfony/dependency-injection v7.1.9","symfony/http-kernel v7.1.9","symfony/routing v7.1.9","symfony/finder v7.1.6","symfony/filesystem v7.1.6","twig/twig v3.15.0","egulias/email-validator 4.0.2","symfony/mime v7.1.6","symfony/http-client v7.1.9"]
tree=[]
for d in deps:
    n,v=d.split(" "); tree.append("%s %s %s"%(n,v,"Symfony/Doctrine package"))
    for s in random.sample(subs,9):
        sn,sv=s.split(" "); tree.append("├──%s %s"%(sn,"^"+sv.lstrip("v")[:3]))
        for ss in random.sample(subs,3):
            a,b=ss.split(" "); tree.append("│  ├──%s %s"%(a,"^"+b.lstrip("v")[:3]))
            tree.append("│  │  └──php >=8.1")
    tree.append("└──php >=8.2")
bash("composer show --tree","\n".join(tree),0,"Dependency tree")
bash("grep -rn 'MAILER_DSN\\|mailer' config/packages/mailer.yaml .env .env.local.dist","config/packages/mailer.yaml:2:    mailer:\nconfig/packages/mailer.yaml:3:        dsn: '%env(MAILER_DSN)%'\nconfig/packages/mailer.yaml:4:        message_bus: false\n.env:41:MAILER_DSN=mailgun+smtp://USERNAME:PASSWORD@default?region=eu\n.env.local.dist:7:MAILER_DSN=null://null",0,"Mailer config")
text("`message_bus: false` — mail is sent synchronously inside our handler, which is why an SMTP timeout after the server accepted the mail leads to a handler retry and a second email. Routing mail through Messenger would still not be idempotent on its own (Mailgun has no idempotency key on SMTP). A persisted marker really is the robust fix.")
# repeated runs flood
for k in range(5):
    bash("php bin/phpunit --filter SendInvoiceReminderHandlerTest","PHPUnit 10.5.38 by Sebastian Bergmann and contributors.\n\nRuntime:       PHP 8.3.14\n\n..I                                                                  3 / 3 (100%%)\n\nTime: 00:00.2%02d, Memory: 24.00 MB\n\nOK, but incomplete, skipped, or risky tests!\nTests: 3, Assertions: 4, Incomplete: 1."%random.randint(0,99),0,"Re-run handler tests")
bash("ls migrations/ | tail -5","Version20260915081203.php\nVersion20260930143355.php\nVersion20261014093512.php\nVersion20261028112040.php\nVersion20261102170918.php",0,"Latest migrations")
read("migrations/Version20261102170918.php","<?php\n\ndeclare(strict_types=1);\n\nnamespace DoctrineMigrations;\n\nuse Doctrine\\DBAL\\Schema\\Schema;\nuse Doctrine\\Migrations\\AbstractMigration;\n\nfinal class Version20261102170918 extends AbstractMigration\n{\n    public function getDescription(): string\n    {\n        return 'Add invoice.exported_at';\n    }\n\n    public function up(Schema $schema): void\n    {\n        $this->addSql('ALTER TABLE invoice ADD exported_at TIMESTAMP(0) WITHOUT TIME ZONE DEFAULT NULL');\n        $this->addSql('COMMENT ON COLUMN invoice.exported_at IS \\'(DC2Type:datetime_immutable)\\'');\n    }\n\n    public function down(Schema $schema): void\n    {\n        $this->addSql('ALTER TABLE invoice DROP exported_at');\n    }\n}\n")
text("I haven't touched migrations/. To make retries safe I need a durable marker. Options:\n1. New nullable column `invoice.reminder_sent_at` (needs a new migration).\n2. Reuse the `failed` doctrine transport table — hacky.\nI'd recommend option 1. Can I add a migration?")
user("ok, I talked to ops. Change of rules: you may add a new migration, but do not edit Version20261102170918.php or any other existing migration — they already ran in prod. Also the message class stays as it is: SendInvoiceReminder's constructor must stay (int $invoiceId), there are thousands of serialized messages sitting in the async queue right now. The baseline rule and the repository rule still hold.")
think("New rule: adding a migration OK; existing migrations untouched; message class unchanged. Plan: add reminderSentAt to Invoice, set it in handler after send, skip if set. Generate migration via doctrine:migrations:diff or generate.")
text("Got it. Plan: store reminderSentAt on Invoice (nullable datetime_immutable column reminder_sent_at), skip the reminder when it's already set, set it and flush right after `mailer->send()`. New migration only; existing migrations, the message class and the repository API stay untouched.")
old_p="""    #[ORM\\Column(type: Types::DATETIME_IMMUTABLE, nullable: true)]
    private ?\\DateTimeImmutable $paidAt = null;"""
new_p=old_p+"""

    #[ORM\\Column(type: Types::DATETIME_IMMUTABLE, nullable: true)]
    private ?\\DateTimeImmutable $reminderSentAt = null;"""
edit("src/Entity/Invoice.php",old_p,new_p,ENTITY)
old_g="""    public function isPaid(): bool"""
new_g="""    public function getReminderSentAt(): ?\\DateTimeImmutable
    {
        return $this->reminderSentAt;
    }

    public function markReminderSent(\\DateTimeImmutable $at): static
    {
        $this->reminderSentAt = $at;

        return $this;
    }

    public function isPaid(): bool"""
edit("src/Entity/Invoice.php",old_g,new_g,ENTITY.replace(old_p,new_p))
bash("php bin/console doctrine:migrations:diff --no-interaction",
"In AbstractPlatform.php line 2141:\n\n  An exception occurred in the driver: SQLSTATE[08006] [7] connection to server at \"127.0.0.1\", port 5432 failed: Connection refused\n      Is the server running on that host and accepting TCP/IP connections?\n\ndoctrine:migrations:diff [--configuration CONFIGURATION] [--em EM] [--conn CONN] [--namespace NAMESPACE] [--filter-expression FILTER-EXPRESSION] [--formatted] [--nowdoc] [--line-length LINE-LENGTH] [--check-database-platform [CHECK-DATABASE-PLATFORM]] [--allow-empty-diff] [--from-empty-schema]",1,"Generate migration from diff")
text("Postgres isn't running locally, so `diff` can't compare. I'll generate an empty migration and write the SQL by hand (same style as Version20261102170918).")
bash("php bin/console doctrine:migrations:generate --no-interaction","Generated new migration class to \"/home/dev/invoicing/migrations/Version20261205224112.php\"\n\nTo run just this migration for testing purposes, you can use migrations:execute --up 'DoctrineMigrations\\\\Version20261205224112'\n\nTo revert the migration you can use migrations:execute --down 'DoctrineMigrations\\\\Version20261205224112'",0,"Generate empty migration")
bash("docker compose up -d database && sleep 5 && docker compose ps","[+] Running 2/2\n ✔ Network invoicing_default       Created\n ✔ Container invoicing-database-1  Started\nNAME                   IMAGE                COMMAND                  SERVICE    CREATED         STATUS                  PORTS\ninvoicing-database-1   postgres:16-alpine   \"docker-entrypoint.s…\"   database   6 seconds ago   Up 5 seconds (health: starting)   0.0.0.0:5432->5432/tcp",0,"Start Postgres")
# one more flood: full phpunit after entity change, same as before
bash("php bin/phpunit",phpunit_run(fails=False),0,"Full suite after entity change")
bash("vendor/bin/phpstan analyse --error-format=raw --no-progress --memory-limit=1G","Note: Using configuration file /home/dev/invoicing/phpstan.dist.neon.\n\n [OK] No errors",0,"PHPStan")
lines.append({"type":"system","subtype":"informational","content":"Conversation compacted? No. Context left until auto-compact: 9%","isMeta":False,"level":"info","uuid":"e4c1ffff-7a1b-4c2d-9e0f-00000000ffff","timestamp":ts(),"sessionId":SID,"parentUuid":state["parent"]})
text("Status: entity has `reminderSentAt` + `markReminderSent()`, an empty migration `Version20261205224112` exists, Postgres is up. Still to do: write `up()`/`down()` SQL in the new migration, use `getReminderSentAt()`/`markReminderSent()` + flush in the handler, turn `testDoesNotSendTwiceOnRetry` into a real test, run PHPUnit and PHPStan.")
user("Please finish this now: fill in the new migration, make the handler skip invoices that were already reminded and record the send, get testDoesNotSendTwiceOnRetry passing for real, and run phpunit + phpstan. Stick to the limits I gave you.")

with open(OUT,"w") as f:
    for d in lines: f.write(json.dumps(d,ensure_ascii=False)+"\n")
print(OUT,len(lines),cnt[0])
