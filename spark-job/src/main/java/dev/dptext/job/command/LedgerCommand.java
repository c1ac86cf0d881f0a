package dev.dptext.job.command;

import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.ledger.LedgerReport;
import dev.dptext.job.ledger.LedgerSql;
import dev.dptext.job.ledger.LedgerTable;
import dev.dptext.job.write.OutputFormat;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ledger}: what the privacy ledger says, per source: the largest ε per row and how rows are
 * spread over totals, what each release added, and which releases share rows (docs/ledger.md).
 */
@Command(name = "ledger", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Show the privacy ledger: per source, the total ε per row (largest, distribution), what each "
        + "release added, and which releases share rows.")
final class LedgerCommand implements Callable<Integer> {
  @Mixin ConfigOptions config;

  @Option(names = "--ledger", required = true, paramLabel = "PATH|TABLE",
      description = "The ledger (as given to sanitize --ledger).")
  String ledger;

  @Option(names = "--source", paramLabel = "TEXT",
      description = "Only the sources whose identity contains TEXT (e.g. a path, or a Delta table id).")
  String source;

  @Option(names = "--json", paramLabel = "PATH", description = "Also write the report as JSON to PATH.")
  String json;

  @Option(names = "--sql", description = "Print the SQL that computes every row's total ε from this ledger (a view "
      + "for SQL users: source, id_space, lo, hi, epsilon), instead of the report.")
  boolean sql;

  @Override
  public Integer call() {
    SparkSession spark = JobSession.get();
    try (RunPhases.Scope named = RunPhases.begin(spark, "ledger", ledger)) {
      if (sql) {
        System.out.println(LedgerSql.segments(LedgerSql.reference(spark, ledger)));
        return 0;
      }
      LedgerTable table = new LedgerTable(spark, ledger);
      if (!table.exists()) {
        throw JobException.of("LEDGER_NOT_FOUND", "ledger", ledger);
      }
      LedgerReport report = LedgerReport.of(table.read(), source);
      System.out.print(report.render());
      if (json != null) {
        OutputFormat.writeText(spark, json, OutputFormat.toJson(report.toMap()) + "\n");
      }
      return 0;
    }
  }
}
