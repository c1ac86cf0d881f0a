package dev.dptext.job.sanitize;

import dev.dptext.classic.Classic;
import dev.dptext.job.ledger.ReleasePlan;
import dev.dptext.job.model.ModelOptions;
import dev.dptext.job.write.OutputLocation;
import dev.dptext.runtime.ModelLoader;
import dev.dptext.runtime.ServerSanitizer;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.spark.DpText;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;

/**
 * A {@code sanitize} run's plan: its settings read and checked once (the mechanism's spec and ε inside
 * {@link DpTextOptions}, checked when read), the id mode checked against {@code --id-column}, and the
 * sanitizer that every later phase takes — classic, the DataFrame API's with the key resolved in this
 * program; on Spark Connect, the server's, which resolves the key itself (what the server cannot do from
 * settings alone refused here, before anything is read).
 *
 * @param connect whether the session is a Spark Connect client
 * @param options the run's settings
 * @param ids the id mode
 * @param idColumn {@code --id-column} in column mode, else null
 * @param builder classic, the sanitizer with its key; on Connect, the options sent to the server, as a builder
 *     that holds them (its model and key are never built here)
 * @param server on Spark Connect the server-side sanitizer of those options, else null
 */
public record RunSettings(boolean connect, DpTextOptions options, IdMode ids, String idColumn, DpText.Builder builder,
    ServerSanitizer server) {

  /**
   * Reads the request's settings and resolves its sanitizer; {@code refuseIdMode} refuses an id mode the
   * run cannot take (a stream refuses fresh randomness) before any key is read.
   */
  public static RunSettings resolve(SparkSession spark, SanitizeRequest r, Consumer<IdMode> refuseIdMode) {
    DpTextOptions options = r.settings().get();
    IdMode ids = Sanitizers.idMode(options.idMode(), r.columns().id());
    refuseIdMode.accept(ids);
    String idColumn = ids == IdMode.COLUMN ? r.columns().id() : null;
    if (Classic.is(spark)) {
      return new RunSettings(false, options, ids, idColumn, Sanitizers.classic(spark, options), null);
    }
    Sanitizers.OnServer onServer = Sanitizers.onServer(spark, r, options, ids);
    return new RunSettings(true, options, ids, idColumn, onServer.builder(), onServer.server());
  }

  /** Has the sanitizer seed each row as the id mode says: by its id, by its text, or afresh. */
  public void seedRows() {
    if (ids == IdMode.COLUMN) {
      builder.idColumn(idColumn);
    } else if (ids == IdMode.CONTENT_HASH) {
      builder.seedByContent();
    } else {
      builder.freshRandomness();
    }
  }

  /**
   * Builds the model and the sampler where the run sanitizes: on the Connect server, or here (and
   * broadcasts them). The failure names the problem in one line, never a key or a row.
   */
  public void prepare(SparkSession spark) {
    if (connect) {
      Sanitizers.prepareOnServer(spark, server);
    } else {
      builder.prepare(spark);
    }
  }

  /** The model's hash, as the audit, the summary and the ledger record it. */
  public String modelHash(SparkSession spark) {
    return ModelOptions.hash(spark, options);
  }

  /** How the model reaches the tasks (broadcast, partitioned), as the audit and the summary say it. */
  public String layout(SparkSession spark) {
    return ModelLoader.layout(spark, options);
  }

  /**
   * The release the ledger records for this run (the sanitizer's options as seeded, once {@link #seedRows}
   * ran): what is released from {@code source}, by which key and mechanism, into the output.
   *
   * @param extra what else makes two runs the same release (model, columns, word frequencies)
   */
  public ReleasePlan releasePlan(SparkSession spark, SanitizeRequest r, String source, List<String> extra) {
    return ReleasePlan.of(r.ledger().ledger(), r.ledger().budget(), source, idColumn, builder.options(), ids,
        Sanitizers.keyFingerprint(connect, builder), Sanitizers.contentKey(connect, builder), builder.guarantee(), extra,
        OutputLocation.qualified(spark, r.output()));
  }
}
