package dev.dptext.job.ledger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * One release as the ledger records it: which rows of which source it wrote sanitized, with what.
 *
 * @param releaseId this run's (or micro-batch's) own id
 * @param recordedAt when the release was recorded (before its write)
 * @param source the source the release is accounted in: {@code delta:<table id>} for a Delta table (stable
 *     across renames and spellings of its path) or anything read inside one, else {@value #FILES}
 *     ({@link SourceSnapshot})
 * @param sourceVersion the snapshot read: {@code v<N>} for a Delta table, {@code files:<sha256>} of the
 *     SHA-256 of each file's bytes, {@code <stream app id>:<batch id>} for a micro-batch (with the digest
 *     of its files when it read files); null when unknown (the release then never counts as a repeat)
 * @param rows what was released (id column, kind, ranges, row count)
 * @param mechanism the mechanism's name
 * @param parameters the mechanism with its parameters ({@code santext ε=3.0})
 * @param epsilon ε per token: what the release adds to each of its rows
 * @param guarantee the mechanism's guarantee, as on every surface
 * @param keyFingerprint {@code SecretKey.fingerprint}, null for fresh randomness or a key this program
 *     cannot read (a Spark Connect server's own)
 * @param randomness {@code column}, {@code content-hash} or {@code fresh} (the id mode)
 * @param settingsFingerprint SHA-256 of every setting the output depends on, the key's source left out
 * @param contentFingerprint what the release sanitized: HMAC under the key of the sums of every released row's
 *     {@code RowContent} (its seed bytes and text as the sanitizer read them), 128 bits in hex; null when not
 *     known (fresh randomness, a key not readable here, a release recorded before it was)
 * @param output where the sanitized rows go
 * @param dptextVersion the job's version
 */
public record Release(String releaseId, Timestamp recordedAt, String source, String sourceVersion,
    ReleasedRows rows, String mechanism, String parameters, double epsilon, String guarantee,
    String keyFingerprint, String randomness, String settingsFingerprint, String contentFingerprint, String output,
    String dptextVersion) {

  /** The events a release goes through in the ledger. */
  public static final String INTENDED = "intended";
  public static final String COMMITTED = "committed";
  public static final String WITHDRAWN = "withdrawn";
  /** Its input files were not the same after its write as when recorded: its snapshot is unknown. */
  public static final String SNAPSHOT_CHANGED = "snapshot_changed";

  /** The column added after the first ledgers were written: an older ledger gains it with its next release. */
  static final String CONTENT_FINGERPRINT = "content_fingerprint";

  /** The ledger table's columns. Events other than {@link #INTENDED} carry only the first columns. */
  public static final StructType SCHEMA = new StructType(new StructField[] {
      DataTypes.createStructField("release_id", DataTypes.StringType, false),
      DataTypes.createStructField("event", DataTypes.StringType, false),
      DataTypes.createStructField("recorded_at", DataTypes.TimestampType, false),
      DataTypes.createStructField("output", DataTypes.StringType, true),
      DataTypes.createStructField("output_version", DataTypes.LongType, true),
      DataTypes.createStructField("source", DataTypes.StringType, true),
      DataTypes.createStructField("source_version", DataTypes.StringType, true),
      DataTypes.createStructField("id_column", DataTypes.StringType, true),
      DataTypes.createStructField("id_kind", DataTypes.StringType, true),
      DataTypes.createStructField("ranges", DataTypes.createArrayType(new StructType(new StructField[] {
          DataTypes.createStructField("lo", DataTypes.LongType, false),
          DataTypes.createStructField("hi", DataTypes.LongType, false)}), false), true),
      DataTypes.createStructField("exact", DataTypes.BooleanType, true),
      DataTypes.createStructField("rows", DataTypes.LongType, true),
      DataTypes.createStructField("mechanism", DataTypes.StringType, true),
      DataTypes.createStructField("parameters", DataTypes.StringType, true),
      DataTypes.createStructField("epsilon", DataTypes.DoubleType, true),
      DataTypes.createStructField("guarantee", DataTypes.StringType, true),
      DataTypes.createStructField("key_fingerprint", DataTypes.StringType, true),
      DataTypes.createStructField("randomness", DataTypes.StringType, true),
      DataTypes.createStructField("settings_fingerprint", DataTypes.StringType, true),
      DataTypes.createStructField("dptext_version", DataTypes.StringType, true),
      DataTypes.createStructField(CONTENT_FINGERPRINT, DataTypes.StringType, true)});

  /**
   * What makes two releases the same release: the same key and settings and what they sanitized — every
   * row's seed bytes and text ({@link #contentFingerprint}), so each row's output is the same and the second
   * adds no spending; then (a guard, never a way to a repeat) the same source snapshot, id column and id
   * seed form. Nothing the output depends on is left to a list of fields: whatever way of reading, typing or
   * seeding changes an output row changes its content. A release with fresh randomness, with a key or content
   * not known here, or of an unknown snapshot (its files changed while it read them) is only itself.
   */
  public String repeatKey() {
    if (keyFingerprint == null || sourceVersion == null || contentFingerprint == null || randomness.equals("fresh")) {
      return "release:" + releaseId;
    }
    return sha256(String.join("\u0000", source, sourceVersion, String.valueOf(rows.idColumn()), rows.kindLabel(),
        settingsFingerprint, keyFingerprint, contentFingerprint));
  }

  /** The source that files are accounted in: every file of every spelling, folder level, link or copy. */
  public static final String FILES = "files";

  /**
   * The source a recorded {@code source} is accounted in: a Delta table by its id, anything else in
   * {@link #FILES} (older ledgers recorded a file source by its location, which two spellings of the
   * same file did not share).
   */
  static String accountedIn(String source) {
    return source != null && source.startsWith("delta:") ? source : FILES;
  }

  /** The {@link #INTENDED} event's row. */
  Row intended() {
    List<Row> ranges = null;
    if (rows.ranges() != null) {
      ranges = new ArrayList<>();
      for (ReleasedRows.Range r : rows.ranges()) {
        ranges.add(RowFactory.create(r.lo(), r.hi()));
      }
    }
    return RowFactory.create(releaseId, INTENDED, recordedAt, output, null, source, sourceVersion, rows.idColumn(),
        rows.kindLabel(), ranges, rows.exact(), rows.rows(), mechanism, parameters, epsilon, guarantee,
        keyFingerprint, randomness, settingsFingerprint, dptextVersion, contentFingerprint);
  }

  /** A later event of release {@code releaseId}: {@link #COMMITTED} (with the output's version) or {@link #WITHDRAWN}. */
  static Row event(String releaseId, String event, String output, Long outputVersion) {
    Object[] values = new Object[SCHEMA.size()];
    values[0] = releaseId;
    values[1] = event;
    values[2] = new Timestamp(System.currentTimeMillis());
    values[3] = output;
    values[4] = outputVersion;
    return RowFactory.create(values);
  }

  /**
   * The release an {@link #INTENDED} row records; {@code snapshotChanged}: its input files changed while it
   * ran (a {@link #SNAPSHOT_CHANGED} event), so what it read is not known exactly and it repeats nothing.
   */
  static Release of(Row r, boolean snapshotChanged) {
    List<ReleasedRows.Range> ranges = null;
    if (!r.isNullAt(r.fieldIndex("ranges"))) {
      ranges = new ArrayList<>();
      for (Row range : r.<Row>getList(r.fieldIndex("ranges"))) {
        ranges.add(new ReleasedRows.Range(range.getLong(0), range.getLong(1)));
      }
    }
    ReleasedRows rows = ReleasedRows.parse(r.getAs("id_column"), r.getAs("id_kind"), ranges, r.<Boolean>getAs("exact"),
        r.<Long>getAs("rows"));
    return new Release(r.getAs("release_id"), r.getAs("recorded_at"), accountedIn(r.getAs("source")),
        snapshotChanged ? null : r.getAs("source_version"),
        rows, r.getAs("mechanism"), r.getAs("parameters"), r.<Double>getAs("epsilon"), r.getAs("guarantee"),
        r.getAs("key_fingerprint"), r.getAs("randomness"), r.getAs("settings_fingerprint"),
        java.util.Arrays.asList(r.schema().fieldNames()).contains(CONTENT_FINGERPRINT) ? r.getAs(CONTENT_FINGERPRINT)
            : null, r.getAs("output"), r.getAs("dptext_version"));
  }

  static String sha256(String text) {
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(h);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available in this JVM", e);
    }
  }
}
