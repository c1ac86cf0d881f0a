package dev.dptext.arch;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library's packages depend on each other in one direction only: no cycle between them, and each
 * layer uses only the layers below it (each package's {@code package-info.java} says what it owns and
 * what it may import). From the bottom:
 *
 * <pre>
 *   base        errors (the error catalogue every package raises from) and json (dptext's JSON reader)
 *   config      how a setting is declared (Setting, Check, ValueType)
 *   domain      random, embedding, knn, text, mechanism, model: the DP machinery
 *   settings    dptext's settings, one sanitization's values, the key's sources
 *   sanitizer   the keyed sanitizer every task runs, and the token counts tasks report
 *   classic     what only a classic session has (the door, broadcasts, accumulators), the partitioned path
 *   runtime     driver-side plumbing: session conf and key, model loading, sanitizer caches and sources,
 *               the row functions, the Spark Connect route
 *   spark       what users call: DpText, the SQL functions and their extension, the ML stage
 *   evaluation  the evaluations, which run sanitization through the public API
 * </pre>
 *
 * Why runtime sits above classic: runtime asks the classic door ({@code dev.dptext.classic.Classic}) what
 * kind of session it has and for what only a classic session gives (its Hadoop configuration, its start-up
 * conf, a broadcast), while the partitioned path needs only the settings and the sanitizer.
 */
class PackageLayersTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.dptext");
  }

  /** No cycle between the top-level packages (a package and its sub-packages count as one). */
  static final ArchRule NO_CYCLE_BETWEEN_TOP_LEVEL_PACKAGES = slices().matching("dev.dptext.(*)..")
      .should().beFreeOfCycles();

  /** No cycle between any two packages, sub-packages included (classic and classic.partitioned, spark and spark.ml). */
  static final ArchRule NO_CYCLE_BETWEEN_PACKAGES = slices().matching("dev.dptext.(**)").should().beFreeOfCycles();

  static final ArchRule LAYERS = layeredArchitecture().consideringOnlyDependenciesInLayers()
      .layer("base").definedBy("dev.dptext.errors..", "dev.dptext.json..")
      .layer("config").definedBy("dev.dptext.config..")
      .layer("domain").definedBy("dev.dptext.random..", "dev.dptext.embedding..", "dev.dptext.knn..",
          "dev.dptext.text..", "dev.dptext.mechanism..", "dev.dptext.model..")
      .layer("settings").definedBy("dev.dptext.settings..")
      .layer("sanitizer").definedBy("dev.dptext.sanitizer..")
      .layer("classic").definedBy("dev.dptext.classic..")
      .layer("runtime").definedBy("dev.dptext.runtime..")
      .layer("spark").definedBy("dev.dptext.spark..")
      .layer("evaluation").definedBy("dev.dptext.evaluation..")
      .whereLayer("base").mayNotAccessAnyLayer()
      .whereLayer("config").mayOnlyAccessLayers("base")
      .whereLayer("domain").mayOnlyAccessLayers("base", "config")
      .whereLayer("settings").mayOnlyAccessLayers("base", "config", "domain")
      .whereLayer("sanitizer").mayOnlyAccessLayers("base", "config", "domain", "settings")
      .whereLayer("classic").mayOnlyAccessLayers("base", "config", "domain", "settings", "sanitizer")
      .whereLayer("runtime").mayOnlyAccessLayers("base", "config", "domain", "settings", "sanitizer", "classic")
      .whereLayer("spark").mayOnlyAccessLayers("base", "config", "domain", "settings", "sanitizer", "classic",
          "runtime")
      .whereLayer("evaluation").mayOnlyAccessLayers("base", "config", "domain", "settings", "sanitizer", "classic",
          "runtime", "spark")
      .ensureAllClassesAreContainedInArchitecture()
      .because("an import running back up makes a package cycle: see dev.dptext.arch.PackageLayersTest");

  @Test
  void noCycleBetweenTopLevelPackages() {
    NO_CYCLE_BETWEEN_TOP_LEVEL_PACKAGES.check(main);
  }

  @Test
  void noCycleBetweenPackages() {
    NO_CYCLE_BETWEEN_PACKAGES.check(main);
  }

  @Test
  void eachLayerUsesOnlyTheLayersBelowIt() {
    LAYERS.check(main);
  }
}
