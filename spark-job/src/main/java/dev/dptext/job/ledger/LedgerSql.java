package dev.dptext.job.ledger;

/**
 * The ledger's accounting as one Spark SQL query, for SQL users (a view over the ledger, in a notebook or
 * Databricks SQL, through Spark Connect or not): every run of row keys with the same total ε, per source
 * and id space. It computes what {@link Spending#segments} and {@link Spending#maximum} compute, with the
 * same sources ({@link Release#accountedIn}), id spaces and repeats ({@link Release#repeatKey}), and is
 * tested against them ({@code LedgerSqlTest}); {@code dptext ledger --sql} prints it for a ledger.
 *
 * <p>Columns: {@code source}, {@code id_space} (null for a source released only without ids),
 * {@code lo}, {@code hi} (the row keys, null without ids), {@code epsilon} (their total, rounded to 1e-9).
 * The largest ε per row of each source: {@code SELECT source, max(epsilon) ... GROUP BY source}.
 */
public final class LedgerSql {
  private LedgerSql() {}

  /** The query over the ledger table {@code ledger}: a table name, or {@code delta.`path`}. */
  public static String segments(String ledger) {
    return """
        WITH live AS (
          SELECT release_id, epsilon, ranges, id_column, key_fingerprint, randomness, settings_fingerprint,
            content_fingerprint,
            CASE WHEN source LIKE 'delta:%%' THEN source ELSE 'files' END AS source,
            CASE WHEN release_id IN (SELECT release_id FROM %1$s WHERE event = 'snapshot_changed') THEN NULL
              ELSE source_version END AS source_version,
            CASE WHEN id_kind = 'hashed' THEN 'hashed:unknown' ELSE id_kind END AS id_kind
          FROM %1$s WHERE event = 'intended'
            AND release_id NOT IN (SELECT release_id FROM %1$s WHERE event = 'withdrawn')
        ), rel AS (
          SELECT source, epsilon, ranges,
            CASE WHEN id_kind = 'none' THEN NULL ELSE concat(id_column, ' (', id_kind, ')') END AS id_space,
            CASE WHEN key_fingerprint IS NULL OR source_version IS NULL OR content_fingerprint IS NULL
                OR randomness = 'fresh'
              THEN concat('release:', release_id)
              ELSE sha2(concat_ws('|', source, source_version, coalesce(id_column, ''), id_kind,
                settings_fingerprint, key_fingerprint, content_fingerprint), 256) END AS identity
          FROM live
        ), ident AS (
          SELECT DISTINCT source, identity, id_space, epsilon FROM rel
        ), rng AS (
          SELECT source, id_space, identity, epsilon, r.lo AS lo, r.hi AS hi
          FROM rel LATERAL VIEW explode(ranges) e AS r WHERE id_space IS NOT NULL
        ), ordered AS (
          SELECT *, max(hi) OVER (PARTITION BY source, id_space, identity ORDER BY lo, hi
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_hi FROM rng
        ), islands AS (
          SELECT *, sum(CASE WHEN prev_hi IS NULL OR lo > prev_hi + 1 THEN 1 ELSE 0 END)
            OVER (PARTITION BY source, id_space, identity ORDER BY lo, hi ROWS UNBOUNDED PRECEDING) AS island
          FROM ordered
        ), merged AS (
          SELECT source, id_space, identity, first(epsilon) AS epsilon, min(lo) AS lo, max(hi) AS hi
          FROM islands GROUP BY source, id_space, identity, island
        ), steps AS (
          SELECT source, id_space, pos, sum(d) AS d FROM (
            SELECT source, id_space, lo AS pos, epsilon AS d FROM merged
            UNION ALL
            SELECT source, id_space, hi + 1 AS pos, -epsilon AS d FROM merged WHERE hi < 9223372036854775807
          ) GROUP BY source, id_space, pos
        ), running AS (
          SELECT source, id_space, pos,
            sum(d) OVER (PARTITION BY source, id_space ORDER BY pos ROWS UNBOUNDED PRECEDING) AS spent,
            lead(pos) OVER (PARTITION BY source, id_space ORDER BY pos) AS next
          FROM steps
        ), wild AS (
          SELECT s.source, s.id_space, coalesce(sum(i.epsilon), 0) AS wild
          FROM (SELECT DISTINCT source, id_space FROM ident WHERE id_space IS NOT NULL) s
          LEFT JOIN ident i ON i.source = s.source AND (i.id_space IS NULL OR i.id_space <> s.id_space)
          GROUP BY s.source, s.id_space
        )
        SELECT r.source, r.id_space, r.pos AS lo, coalesce(r.next - 1, 9223372036854775807) AS hi,
          round(r.spent + w.wild, 9) AS epsilon
        FROM running r JOIN wild w ON r.source = w.source AND r.id_space = w.id_space
        WHERE r.spent > 1e-9
        UNION ALL
        SELECT source, NULL AS id_space, NULL AS lo, NULL AS hi, round(sum(epsilon), 9) AS epsilon
        FROM ident GROUP BY source HAVING count(id_space) = 0
        """.formatted(ledger);
  }

  /** How the ledger at {@code location} is named in SQL: its catalog name, or {@code delta.`path`}. */
  public static String reference(org.apache.spark.sql.SparkSession spark, String location) {
    return dev.dptext.job.write.DeltaTables.ident(spark, location);
  }
}
