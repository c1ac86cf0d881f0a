package dev.dptext.job.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.TableName;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.job.write.OutputLocation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.SparkSession;

/**
 * A stream's checkpoint directory and the table it feeds, checked before the query starts.
 *
 * <p>Spark's checkpoint records which input each micro-batch read and which micro-batches finished;
 * the output table records, in each Delta commit, the transaction {@code (dptext-stream-<query id>,
 * batch id)} of the micro-batch it holds (in Delta's own record, and in the commit's userMetadata,
 * where {@link DeltaTables} finds it). Exactly once rests on the two agreeing, so a run is refused
 * (exit 2) when they cannot: a checkpoint inside the output or the input (a table directory holds only
 * the table; VACUUM deletes what it does not know), a checkpoint that belongs to another input or
 * output (recorded in {@value #BINDING} on first start), a checkpoint whose finished micro-batches are
 * not in the output (the table was deleted or replaced), and, with {@code --mode errorifexists}, a new
 * checkpoint for a table that already holds rows (a new query would read the whole input again and
 * duplicate them).
 */
final class StreamCheckpoint {
  /** Prefix of the Delta transaction ids of dptext streams; the rest is the query id. */
  static final String APP_ID_PREFIX = "dptext-stream-";
  /** The file in the checkpoint naming the input and output it belongs to. */
  static final String BINDING = "_dptext_stream.json";

  private final SparkSession spark;
  private final String path;
  private final dev.dptext.runtime.Storage fs;
  /** The qualified input and output this checkpoint is for. */
  private final Map<String, String> binding = new LinkedHashMap<>();

  private StreamCheckpoint(SparkSession spark, String path, String input, String output) {
    this.spark = spark;
    this.path = path;
    binding.put("input", input);
    binding.put("output", output);
    this.fs = dev.dptext.runtime.Storage.of(spark, path);
  }

  /**
   * Checks where {@code checkpoint} is relative to the input and the output, and that it belongs to
   * this input and output.
   *
   * @throws JobException (usage) naming the conflict and the fix
   */
  static StreamCheckpoint check(SparkSession spark, String checkpoint, String input, String output) {
    for (String table : new String[] {input, output}) {
      if (TableName.is(spark, table)) {
        throw JobException.of("STREAM_TABLE_BY_NAME", "table", table);
      }
    }
    String c = OutputLocation.qualified(spark, checkpoint);
    String in = OutputLocation.qualified(spark, input);
    String out = OutputLocation.qualified(spark, output);
    if (within(c, out) || within(out, c)) {
      throw JobException.of("CHECKPOINT_OVERLAPS_OUTPUT", "checkpoint", checkpoint, "output", output, "sibling",
          sibling(out));
    }
    if (within(c, in) || within(in, c)) {
      throw JobException.of("CHECKPOINT_OVERLAPS_INPUT", "checkpoint", checkpoint, "input", input, "sibling",
          sibling(out));
    }
    StreamCheckpoint cp = new StreamCheckpoint(spark, c, in, out);
    cp.checkBinding();
    return cp;
  }

  private static boolean within(String child, String parent) {
    return child.equals(parent) || child.startsWith(parent + "/");
  }

  private static String sibling(String out) {
    return out + "-checkpoint";
  }

  /** The checkpoint's qualified path. */
  String path() {
    return path;
  }

  /** The query id Spark recorded in the checkpoint when the stream first started, if it did. */
  Optional<String> queryId() {
    String metadata = fs.child(path, "metadata");
    try {
      if (!fs.exists(metadata)) {
        return Optional.empty();
      }
      try (InputStream s = fs.open(metadata)) {
        JsonNode id = new ObjectMapper().readTree(s).get("id");
        return id == null ? Optional.empty() : Optional.of(id.asText());
      }
    } catch (IOException e) {
      throw JobException.of(e, "CHECKPOINT_METADATA_UNREADABLE", "path", metadata, "reason",
          JobException.firstLine(e.getMessage()));
    }
  }

  /** How many micro-batches Spark recorded as finished (files under {@code commits/}). */
  int finishedBatches() {
    String commits = fs.child(path, "commits");
    try {
      if (!fs.exists(commits)) {
        return 0;
      }
      int n = 0;
      for (dev.dptext.runtime.Storage.Entry f : fs.list(commits)) {
        if (f.name().matches("\\d+")) {
          n++;
        }
      }
      return n;
    } catch (IOException e) {
      throw JobException.of(e, "CHECKPOINT_UNREADABLE", "action", "list", "path", commits, "reason",
          JobException.firstLine(e.getMessage()));
    }
  }

  /**
   * Checks the output against this checkpoint; call before the query starts.
   *
   * @param output the output as given
   * @param at what is at the output
   * @param history the output's transactions ({@link DeltaTables.Transactions#NONE} unless a Delta table)
   * @param errorIfExists {@code --mode errorifexists}: the table must be new, or this stream's own
   */
  void checkOutput(String output, OutputLocation at, DeltaTables.Transactions history, boolean errorIfExists) {
    Optional<String> id = queryId();
    Set<String> streams = new TreeSet<>();
    for (String app : history.apps(APP_ID_PREFIX)) {
      streams.add(app.substring(APP_ID_PREFIX.length()));
    }
    boolean fedByThis = id.isPresent() && streams.contains(id.get());
    if (id.isPresent() && finishedBatches() > 0 && !fedByThis) {
      throw JobException.of("CHECKPOINT_OUTPUT_LOST", "checkpoint", path, "batches", finishedBatches(), "query",
          id.get(), "output", output);
    }
    if (errorIfExists && !fedByThis && at.holdsData()) {
      throw JobException.of("STREAM_OUTPUT_EXISTS", "output", output, "fedBy", streams.isEmpty() ? ""
          : " and is fed by another stream (query " + String.join(", ", streams) + ")", "checkpoint", path);
    }
  }

  /**
   * Refuses a checkpoint recorded ({@link #bind}) for another input or output: Spark's file source
   * would match another directory's files against the files it recorded, and the output's
   * transactions would mix two streams.
   */
  private void checkBinding() {
    String file = fs.child(path, BINDING);
    try {
      if (!fs.exists(file)) {
        return;
      }
      JsonNode recorded;
      try (InputStream s = fs.open(file)) {
        recorded = new ObjectMapper().readTree(s);
      }
      for (Map.Entry<String, String> e : binding.entrySet()) {
        JsonNode r = recorded.get(e.getKey());
        if (r == null || !r.asText().equals(e.getValue())) {
          throw JobException.of("CHECKPOINT_OF_ANOTHER_STREAM", "checkpoint", path, "input",
              recorded.path("input").asText(), "output", recorded.path("output").asText(), "side", e.getKey(),
              "path", e.getValue());
        }
      }
    } catch (IOException e) {
      throw JobException.of(e, "CHECKPOINT_UNREADABLE", "action", "read", "path", file, "reason",
          JobException.firstLine(e.getMessage()));
    }
  }

  /** Records the input and output in the checkpoint (once, when every check passed and the query starts). */
  void bind() {
    String file = fs.child(path, BINDING);
    try {
      if (fs.exists(file)) {
        return;
      }
      fs.mkdirs(path);
      try (var out = fs.create(file, false)) {
        out.write((OutputFormat.toJson(binding) + "\n").getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw JobException.of(e, "CHECKPOINT_UNREADABLE", "action", "write", "path", file, "reason",
          JobException.firstLine(e.getMessage()));
    }
  }

  /** The Delta transaction id of this query's micro-batches. */
  static String appId(String queryId) {
    return APP_ID_PREFIX + queryId;
  }
}
