-- Databricks notebook source
-- MAGIC %md
-- MAGIC # dptext in SQL: a sanitized Delta table with differential privacy
-- MAGIC
-- MAGIC This notebook rewrites the free-text column of a table with **differential privacy** (SanText+ over
-- MAGIC word embeddings) into a Delta table, and computes the privacy statistics of the run. Run it top to
-- MAGIC bottom as it is: the first SQL cell creates a few made-up support tickets. Then point it at your own table.
-- MAGIC
-- MAGIC **Once per cluster, before running it**
-- MAGIC
-- MAGIC 1. **Compute**: classic compute (not serverless) on **Databricks Runtime 17.x** (Spark 4.0, Scala 2.13)
-- MAGIC    in **dedicated** (single user) access mode: dptext broadcasts its model through the SparkContext,
-- MAGIC    which standard access mode does not give to JVM code.
-- MAGIC 2. **The jar**: build `spark-job/target/dptext-spark-job-<version>-shaded.jar` (`./mvnw -DskipTests package`),
-- MAGIC    upload it to a Unity Catalog volume and install it on the cluster (*Compute → Libraries → Install new → JAR*).
-- MAGIC 3. **The key**, in a secret scope (the key decides every row's noise: whoever holds it and a row's id can
-- MAGIC    recompute that noise, so treat it like a password and never type it into a notebook):
-- MAGIC    ```
-- MAGIC    databricks secrets create-scope dptext
-- MAGIC    databricks secrets put-secret dptext rng-key --string-value "$(openssl rand -hex 32)"
-- MAGIC    ```
-- MAGIC 4. **The cluster's Spark config** (*Compute → Advanced options → Spark*) names it:
-- MAGIC    ```
-- MAGIC    spark.dptext.databricksSecret dptext/rng-key
-- MAGIC    ```
-- MAGIC    dptext reads the secret through `dbutils` on the driver; the key itself never enters the Spark conf.
-- MAGIC    (`spark.dptext.secretKey {{secrets/dptext/rng-key}}` works too: Databricks resolves it at cluster start
-- MAGIC    and Spark redacts it. Never `SET spark.dptext.secretKey` in a running session: Spark would copy the
-- MAGIC    value, unredacted, into the event log with every job, so dptext refuses a key set that way.)
-- MAGIC    Only people who may read the secret scope
-- MAGIC    should be able to attach to this cluster.

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## The guarantee, and what it does not cover
-- MAGIC
-- MAGIC Every token (word, number, punctuation mark) is replaced by a word drawn from a differentially private
-- MAGIC mechanism over the embedding vocabulary V, d being the Euclidean distance between embeddings.
-- MAGIC
-- MAGIC * **SanText+** (used here; Yue et al. 2021) splits V by public word frequency: the fraction `w` of least
-- MAGIC   frequent words is *sensitive*. A sensitive word is replaced by a sensitive word y with probability
-- MAGIC   ∝ exp(−ε·d(x, y)/2); a non-sensitive word is kept with probability 1 − p, else replaced the same way.
-- MAGIC   Guarantee: **(ε, ε0)-UMLDP per token, ε0 = ln(1/p)**: sensitive words get ε·d metric local DP, and a
-- MAGIC   non-sensitive word is emitted verbatim with probability 1 − p, by design.
-- MAGIC * **SanText** (`spark.dptext.mechanism = santext`): ε·d metric local DP per token, over all of V.
-- MAGIC
-- MAGIC **Not covered** (say so wherever you publish the table):
-- MAGIC * the number of tokens, how they group into words, and the whitespace: they are copied from the input;
-- MAGIC * the sum over tokens: the guarantee is per token, and a text's privacy loss adds up over its tokens;
-- MAGIC * far-apart words: metric DP protects a word against words *near* it in the embedding space;
-- MAGIC * "rare in the embedding's corpus" (SanText+'s sensitive set) is not "sensitive in your data";
-- MAGIC * verbatim opt-ins: `spark.dptext.oov = keep` (out-of-vocabulary tokens such as names and numbers are
-- MAGIC   otherwise replaced by a random vocabulary word) and `spark.dptext.casePolicy = restore`;
-- MAGIC * every other column: dptext rewrites the text column only. Drop or pseudonymise identifiers yourself.

-- COMMAND ----------

-- MAGIC %scala
-- MAGIC // Registers the SQL function dp_sanitize in this notebook's session. A jar installed on a running
-- MAGIC // cluster is loaded after Spark started, so spark.sql.extensions cannot register it; this call can.
-- MAGIC // From a Python cell: spark._jvm.dev.dptext.spark.DpText.register(spark._jsparkSession)
-- MAGIC dev.dptext.spark.DpText.register(spark)

-- COMMAND ----------

-- Arguments, settings and guarantee of the function.
DESCRIBE FUNCTION EXTENDED dp_sanitize

-- COMMAND ----------

-- A few made-up support tickets, so that the notebook runs anywhere. Replace the view by your table.
CREATE OR REPLACE TEMPORARY VIEW support_tickets AS
SELECT * FROM VALUES
  (1001L, 'shipping', 'My order arrived two days late and the box was damaged. I would like a refund for the shipping cost.'),
  (1002L, 'app', 'The new update keeps crashing when I open the settings page on my phone.'),
  (1003L, 'billing', 'I was charged twice for the same subscription this month. Please fix this as soon as possible.'),
  (1004L, 'account', 'I forgot my password and the reset email never arrives. I checked the spam folder too.'),
  (1005L, 'shipping', 'I moved to a new address in Chicago and my packages still go to the old apartment.'),
  (1006L, 'account', 'Please cancel my account and delete all of my personal data.'),
  (1007L, 'app', ''),
  (1008L, 'billing', CAST(NULL AS STRING))
AS t(ticket_id, product, body)

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Settings
-- MAGIC
-- MAGIC `dp_sanitize` reads the session's `spark.dptext.*` settings when a query uses it (an unknown
-- MAGIC `spark.dptext.*` key is an error naming it). `spark.dptext.model = default` is the GloVe subset inside
-- MAGIC the jar (25,000 words); for real use, point it at a model built once with `dptext build-model`, e.g.
-- MAGIC `dbfs:/Volumes/main/dptext/models/glove-6B-100d-74k.dptext`. Rows are seeded by their id
-- MAGIC (`dp_sanitize(body, ticket_id)`): the same key and ids give the same output on every re-run, whatever
-- MAGIC the partitioning, so the id must be stable and unique.

-- COMMAND ----------

SET spark.dptext.mechanism = santext+;
SET spark.dptext.epsilon = 3;
SET spark.dptext.w = 0.9;
SET spark.dptext.p = 0.3;
SET spark.dptext.model = default;

-- COMMAND ----------

-- The sanitized table. The privacy parameters travel with it as table properties.
CREATE OR REPLACE TABLE support_tickets_sanitized
USING DELTA
COMMENT 'support_tickets with body rewritten by dptext (differential privacy); parameters in TBLPROPERTIES'
TBLPROPERTIES (
  'dptext.mechanism' = '${spark.dptext.mechanism}',
  'dptext.epsilon' = '${spark.dptext.epsilon}',
  'dptext.w' = '${spark.dptext.w}',
  'dptext.p' = '${spark.dptext.p}',
  'dptext.model' = '${spark.dptext.model}',
  'dptext.idColumn' = 'ticket_id'
)
AS SELECT ticket_id, product, dp_sanitize(body, ticket_id) AS body
FROM support_tickets

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Privacy statistics of the run
-- MAGIC
-- MAGIC Computed by comparing input and output. SQL sees *words* (whitespace-separated runs, punctuation
-- MAGIC attached); dptext's tokens are finer (`damaged.` is two tokens), and the job's run summary reports
-- MAGIC them exactly. `max_words_per_row` is the length of the longest text: the per-token guarantee composes
-- MAGIC over at least that many tokens.
-- MAGIC `pct_output_words_also_in_input` is the share of output words that also occur in the row's input:
-- MAGIC words kept verbatim (SanText+ keeps a non-sensitive word with probability 1 − p) or replaced by
-- MAGIC another word of the same text.

-- COMMAND ----------

WITH pairs AS (
  SELECT i.body AS original, o.body AS sanitized
  FROM support_tickets i JOIN support_tickets_sanitized o USING (ticket_id)
  WHERE i.body IS NOT NULL
), words AS (
  SELECT original, sanitized,
         CASE WHEN trim(original) = '' THEN array() ELSE split(lower(trim(original)), '\\s+') END AS words_in,
         CASE WHEN trim(sanitized) = '' THEN array() ELSE split(lower(trim(sanitized)), '\\s+') END AS words_out
  FROM pairs
)
SELECT
  (SELECT count(*) FROM support_tickets) AS rows_in,
  (SELECT count(*) FROM support_tickets_sanitized) AS rows_out,
  count(*) AS rows_with_text,
  count_if(sanitized <> original) AS rows_changed,
  sum(size(words_in)) AS words,
  max(size(words_in)) AS max_words_per_row,
  round(100 * sum(size(filter(words_out, w -> array_contains(words_in, w)))) / sum(size(words_out)), 1)
    AS pct_output_words_also_in_input,
  '${spark.dptext.mechanism}' AS mechanism,
  CAST('${spark.dptext.epsilon}' AS DOUBLE) AS epsilon,
  CASE WHEN '${spark.dptext.mechanism}' = 'santext+'
       THEN round(ln(1 / CAST('${spark.dptext.p}' AS DOUBLE)), 3) END AS epsilon0
FROM words

-- COMMAND ----------

-- What was written: parameters, and the sanitized rows.
SHOW TBLPROPERTIES support_tickets_sanitized

-- COMMAND ----------

SELECT * FROM support_tickets_sanitized ORDER BY ticket_id

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Next
-- MAGIC
-- MAGIC * Re-running this notebook with the same key gives the same table, row for row: rows are seeded by
-- MAGIC   HMAC-SHA256(key, purpose ‖ ticket_id). A new key gives new noise: never publish two sanitizations of
-- MAGIC   the same rows under different keys, since the losses add up.
-- MAGIC * Scheduled runs: the JAR task `dev.dptext.job.DatabricksTask` and the job definition
-- MAGIC   `conf/databricks-job.json` in the repository (docs/databricks.md).
-- MAGIC * Scala, the DataFrame API, exact token statistics and an ML pipeline stage: `dptext-scala.scala`.
