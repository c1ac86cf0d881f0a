package dev.dptext.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The job's packages, like the library's ({@code udfs}' PackageLayersTest), depend on each other in one
 * direction only: no cycle, and each uses only the packages listed for it here (its {@code
 * package-info.java} says what it owns). From the bottom:
 *
 * <pre>
 *   base      what every package shares: exit codes, the failure that carries one, the session, the version,
 *             whether a value names a catalog table
 *   hadoop    the only classes naming Hadoop's types (ConnectClientRuleTest)
 *   read      the input               model   the model a command loads or builds
 *   write     the output (Delta's public API, Parquet)
 *   run       what a run reports: its summary, its progress
 *   inplace   a run whose output is its input       ledger   the privacy ledger
 *   evaluate  what the evaluation commands share
 *   sanitize  a batch sanitize run                  stream   sanitize --stream (a micro-batch is a batch run's write)
 *   report    the evaluations' HTML reports (the library's evaluation results only)
 *   command   the command line: one class per command, the only package that knows picocli's options
 *   the root  the entry points (DpTextJob, DatabricksTask)
 * </pre>
 */
class JobLayersTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("-tests.jar"))
        .importPackages("dev.dptext.job", "dev.dptext.report");
  }

  /** No cycle between any two of the job's packages (the root counts as one). */
  static final ArchRule NO_CYCLE = slices().matching("dev.dptext.(**)").should().beFreeOfCycles();

  static final ArchRule LAYERS = layeredArchitecture().consideringOnlyDependenciesInLayers()
      .layer("base").definedBy("dev.dptext.job.base..")
      .layer("hadoop").definedBy("dev.dptext.job.hadoop..")
      .layer("read").definedBy("dev.dptext.job.read..")
      .layer("model").definedBy("dev.dptext.job.model..")
      .layer("write").definedBy("dev.dptext.job.write..")
      .layer("run").definedBy("dev.dptext.job.run..")
      .layer("inplace").definedBy("dev.dptext.job.inplace..")
      .layer("ledger").definedBy("dev.dptext.job.ledger..")
      .layer("evaluate").definedBy("dev.dptext.job.evaluate..")
      .layer("sanitize").definedBy("dev.dptext.job.sanitize..")
      .layer("stream").definedBy("dev.dptext.job.stream..")
      .layer("report").definedBy("dev.dptext.report..")
      .layer("command").definedBy("dev.dptext.job.command..")
      .layer("entry").definedBy("dev.dptext.job")
      .whereLayer("base").mayNotAccessAnyLayer()
      .whereLayer("hadoop").mayNotAccessAnyLayer()
      .whereLayer("read").mayOnlyAccessLayers("base")
      .whereLayer("model").mayOnlyAccessLayers("base")
      .whereLayer("write").mayOnlyAccessLayers("base", "hadoop")
      .whereLayer("run").mayOnlyAccessLayers("base", "write")
      .whereLayer("inplace").mayOnlyAccessLayers("base", "write")
      .whereLayer("ledger").mayOnlyAccessLayers("base", "read", "write", "run")
      .whereLayer("evaluate").mayOnlyAccessLayers("base", "read")
      .whereLayer("sanitize").mayOnlyAccessLayers("base", "read", "model", "write", "run", "inplace", "ledger")
      .whereLayer("stream").mayOnlyAccessLayers("base", "read", "model", "write", "run", "ledger", "sanitize")
      .whereLayer("report").mayNotAccessAnyLayer()
      .whereLayer("command").mayOnlyAccessLayers("base", "read", "model", "write", "run", "inplace", "ledger",
          "evaluate", "sanitize", "stream", "report")
      .whereLayer("entry").mayOnlyAccessLayers("base", "command")
      .ensureAllClassesAreContainedInArchitecture()
      .because("an import running back up makes a package cycle: see dev.dptext.arch.JobLayersTest");

  /**
   * The library's plumbing the job may use: its face towards the job, each type with the reason the job
   * needs it (the packages' own documentation says what they hold). Anything else in {@code runtime} or
   * {@code classic} is the library's inside; a job class that needs more grows this list in review, where
   * the growth is seen.
   */
  static final Set<String> LIBRARY_FACE = Set.of(
      "dev.dptext.runtime.Storage", // files on every file system a deployment has (local, Hadoop, volumes)
      "dev.dptext.runtime.HadoopConf", // the session's Hadoop configuration, for the few Hadoop calls
      "dev.dptext.runtime.ModelLoader", // the model a run names, loaded and checked as the UDFs load it
      "dev.dptext.runtime.ServerSanitizer", // the Spark Connect route: the server's function by name
      "dev.dptext.runtime.RowContent", // a row's seed bytes and text, as the ledger counts a release
      "dev.dptext.runtime.SessionSecret", // the key a session was started with
      "dev.dptext.classic.Classic", // whether the session is classic: the one door to SparkContext
      "dev.dptext.classic.ClassicContext", // what a run reads from a classic session (status, counters, query id)
      "dev.dptext.classic.RowCounter", // rows in, counted as they pass (classic only)
      "dev.dptext.classic.CorpusFrequencies", // --frequency-source private-corpus (classic only)
      "dev.dptext.classic.partitioned.PartitionedModelBuilder", // build-model of a partitioned model
      "dev.dptext.classic.partitioned.EmbeddingsText"); // the embeddings file a partitioned build reads

  static final ArchRule THROUGH_THE_FACE = noClasses().that().resideInAnyPackage("dev.dptext.job..", "dev.dptext.report..")
      .should().dependOnClassesThat(new DescribedPredicate<JavaClass>("the library's plumbing outside its face") {
        @Override
        public boolean test(JavaClass c) {
          String name = c.getName();
          int nested = name.indexOf('$');
          String top = nested < 0 ? name : name.substring(0, nested);
          return (top.startsWith("dev.dptext.runtime.") || top.startsWith("dev.dptext.classic."))
              && !LIBRARY_FACE.contains(top);
        }
      })
      .because("the job reaches the library's plumbing through LIBRARY_FACE only (dev.dptext.arch.JobLayersTest)");

  @Test
  void theJobUsesOnlyTheLibrarysFace() {
    THROUGH_THE_FACE.check(main);
  }

  /** And the face holds nothing the job does not use: it shrinks when a use goes. */
  @Test
  void theFaceHoldsOnlyWhatTheJobUses() {
    Set<String> used = new java.util.TreeSet<>();
    for (JavaClass c : main) {
      c.getDirectDependenciesFromSelf().forEach(d -> {
        String name = d.getTargetClass().getName();
        int nested = name.indexOf('$');
        used.add(nested < 0 ? name : name.substring(0, nested));
      });
    }
    Set<String> unused = new java.util.TreeSet<>(LIBRARY_FACE);
    unused.removeAll(used);
    org.junit.jupiter.api.Assertions.assertEquals(Set.of(), unused, "LIBRARY_FACE lists types the job no longer uses");
  }

  @Test
  void noCycleBetweenTheJobsPackages() {
    NO_CYCLE.check(main);
  }

  @Test
  void eachPackageUsesOnlyThePackagesBelowIt() {
    LAYERS.check(main);
  }
}
