package dev.dptext.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The build rule of the Spark Connect client's classpath: the job's classes link neither against catalyst
 * ({@code org.apache.spark.sql.catalyst}) nor against Hadoop, which a Spark Connect client (a Databricks
 * serverless JAR task) does not have: a path goes through {@code dev.dptext.runtime.Storage}, and only
 * {@code dev.dptext.job.hadoop} names Hadoop's types (loaded where Hadoop is). Two classes still do, each for
 * a feature that needs a file system Hadoop reaches and a classic session today: the in-place purge's swap
 * (renames) and the partitioned model's build; both are listed here by name so that no other class joins them.
 */
class ConnectClientRuleTest {
  static final ArchRule RULE = noClasses().that().resideInAPackage("dev.dptext.job..")
      .and().resideOutsideOfPackage("dev.dptext.job.hadoop..")
      .and().doNotHaveFullyQualifiedName("dev.dptext.job.inplace.InPlaceSwap")
      .and().doNotHaveFullyQualifiedName("dev.dptext.job.model.PartitionedBuild")
      .should().dependOnClassesThat().resideInAnyPackage("org.apache.hadoop..", "org.apache.spark.sql.catalyst..")
      .because("a Spark Connect client's classpath has neither Hadoop nor catalyst: reach paths through "
          + "dev.dptext.runtime.Storage (docs/writes.md)");

  @Test
  void theJobLinksNeitherCatalystNorHadoopOutsideItsHadoopPackage() {
    JavaClasses main = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("-tests.jar"))
        .importPackages("dev.dptext.job");
    RULE.check(main);
  }
}
