// Databricks notebook source
// MAGIC %md
// MAGIC # dptext in Scala: a sanitized Delta table with differential privacy
// MAGIC
// MAGIC This notebook rewrites the free-text column of a table with **differential privacy** (SanText+ over
// MAGIC word embeddings) through dptext's DataFrame API, writes a Delta table, reports the privacy statistics
// MAGIC of the run from dptext's own token counts, and shows the same step as a Spark ML pipeline stage. Run it
// MAGIC top to bottom as it is (the first code cell creates a few made-up support tickets), then point it at
// MAGIC your own table.
// MAGIC
// MAGIC **Once per cluster, before running it**
// MAGIC
// MAGIC 1. **Compute**: classic compute (not serverless) on **Databricks Runtime 17.x** (Spark 4.0, Scala 2.13)
// MAGIC    in **dedicated** (single user) access mode: dptext broadcasts its model through the SparkContext,
// MAGIC    which standard access mode does not give to JVM code.
// MAGIC 2. **The jar**: build `spark-job/target/dptext-spark-job-<version>-shaded.jar` (`./mvnw -DskipTests package`),
// MAGIC    upload it to a Unity Catalog volume and install it on the cluster (*Compute → Libraries → Install new → JAR*).
// MAGIC 3. **The key**, in a secret scope (whoever holds the key and a row's id can recompute that row's noise:
// MAGIC    treat it like a password and never type it into a notebook):
// MAGIC    ```
// MAGIC    databricks secrets create-scope dptext
// MAGIC    databricks secrets put-secret dptext rng-key --string-value "$(openssl rand -hex 32)"
// MAGIC    ```

// COMMAND ----------

// MAGIC %md
// MAGIC ## The guarantee, and what it does not cover
// MAGIC
// MAGIC Every token (word, number, punctuation mark) is replaced by a word drawn from a differentially private
// MAGIC mechanism over the embedding vocabulary V, d being the Euclidean distance between embeddings.
// MAGIC
// MAGIC * **SanText+** (used here; Yue et al. 2021) splits V by public word frequency: the fraction `w` of least
// MAGIC   frequent words is *sensitive*. A sensitive word is replaced by a sensitive word y with probability
// MAGIC   ∝ exp(−ε·d(x, y)/2); a non-sensitive word is kept with probability 1 − p, else replaced the same way.
// MAGIC   Guarantee: **(ε, ε0)-UMLDP per token, ε0 = ln(1/p)**: sensitive words get ε·d metric local DP, and a
// MAGIC   non-sensitive word is emitted verbatim with probability 1 − p, by design.
// MAGIC * **SanText** (dptext's default, `MechanismSpec.parse("santext:epsilon=3")`): ε·d metric local DP per token,
// MAGIC   every word of V alike.
// MAGIC
// MAGIC **Not covered** (say so wherever you publish the table):
// MAGIC * the number of tokens, how they group into words, and the whitespace: they are copied from the input;
// MAGIC * the sum over tokens: the guarantee is per token, and a text's privacy loss adds up over its tokens;
// MAGIC * far-apart words: metric DP protects a word against words *near* it in the embedding space;
// MAGIC * "rare in the embedding's corpus" (SanText+'s sensitive set) is not "sensitive in your data";
// MAGIC * verbatim opt-ins: `OovPolicy.KEEP` (out-of-vocabulary tokens such as names and numbers are otherwise
// MAGIC   replaced by a random vocabulary word) and `CasePolicy.RESTORE`;
// MAGIC * every other column: dptext rewrites the text column only. Drop or pseudonymise identifiers yourself.

// COMMAND ----------

// A few made-up support tickets, so that the notebook runs anywhere. Replace the view by your table.
import spark.implicits._

Seq(
  (1001L, "shipping", "My order arrived two days late and the box was damaged. I would like a refund for the shipping cost."),
  (1002L, "app", "The new update keeps crashing when I open the settings page on my phone."),
  (1003L, "billing", "I was charged twice for the same subscription this month. Please fix this as soon as possible."),
  (1004L, "account", "I forgot my password and the reset email never arrives. I checked the spam folder too."),
  (1005L, "shipping", "I moved to a new address in Chicago and my packages still go to the old apartment."),
  (1006L, "account", "Please cancel my account and delete all of my personal data."),
  (1007L, "app", ""),
  (1008L, "billing", null: String)
).toDF("ticket_id", "product", "body").createOrReplaceTempView("support_tickets")

// COMMAND ----------

// MAGIC %md
// MAGIC ## The key and the settings
// MAGIC
// MAGIC The key stays in the secret scope: this session's Spark conf only *names* it
// MAGIC (`spark.dptext.databricksSecret = dptext/rng-key`), and the DataFrame API, the ML stage and `dp_sanitize`
// MAGIC read it through `dbutils` on the driver. Never put the key itself into a running session's conf
// MAGIC (`spark.conf.set("spark.dptext.secretKey", …)`): Spark copies session settings into every job's properties
// MAGIC and writes them, unredacted, to the event log, so dptext refuses a key set that way. It is never written to
// MAGIC a table or a saved pipeline either.
// MAGIC
// MAGIC `model = "default"` is the GloVe subset inside the jar (25,000 words); for real use, point it at a model
// MAGIC built once with `dptext build-model`, e.g. `dbfs:/Volumes/main/dptext/models/glove-6B-100d-74k.dptext`.

// COMMAND ----------

import dev.dptext.mechanism.MechanismSpec
import dev.dptext.spark.{DpText, TokenAccumulators}

spark.conf.set("spark.dptext.databricksSecret", "dptext/rng-key")

val mechanism = MechanismSpec.parse("santext+:epsilon=3,w=0.9,p=0.3")
println(mechanism.guarantee) // the guarantee of exactly these values, as dptext states it everywhere
val model = "default"

// COMMAND ----------

// Sanitize: each row is seeded by its id, so the same key and ids give the same output on every re-run,
// whatever the partitioning (the id must be stable and unique). The counters sum dptext's token counts
// over the executors while the table is written.
val tokenCounts = new TokenAccumulators(spark)

val sanitized = DpText.sanitizer(spark)
  .model(model)
  .mechanism(mechanism)
  .idColumn("ticket_id")
  .countTokens(tokenCounts)
  .transform(spark.table("support_tickets"), "body") // replaces body; other columns and rows untouched

sanitized.writeTo("support_tickets_sanitized")
  .using("delta")
  .tableProperty("dptext.mechanism", mechanism.name)
  .tableProperty("dptext.epsilon", mechanism.epsilon.toString)
  .tableProperty("dptext.parameters", mechanism.describe)
  .tableProperty("dptext.guarantee", mechanism.guarantee)
  .tableProperty("dptext.model", model)
  .tableProperty("dptext.idColumn", "ticket_id")
  .createOrReplace()

// COMMAND ----------

// MAGIC %md
// MAGIC ## Privacy statistics of the run
// MAGIC
// MAGIC Tokens are dptext's (`damaged.` is two tokens), counted while the table was written, as the job's run
// MAGIC summary counts them (a retried task may count its rows twice; the row counts are exact).
// MAGIC `tokens_changed` differ from their input token; `tokens_oov` were out of the vocabulary and replaced by
// MAGIC a random vocabulary word (the default, safe policy). `max_words_per_row` is the length of the longest
// MAGIC text in whitespace-separated words: the per-token guarantee composes over at least that many tokens.

// COMMAND ----------

import org.apache.spark.sql.functions.{col, max, size, split}

val rowsIn = spark.table("support_tickets").count()
val rowsOut = spark.table("support_tickets_sanitized").count()
require(rowsOut == rowsIn, s"rows out ($rowsOut) differ from rows in ($rowsIn): do not use the table")

val maxWordsPerRow = spark.table("support_tickets").select(max(size(split(col("body"), "\\s+")))).head().getInt(0)
val epsilon0 = Option(mechanism.values.get("p")).map(p => math.log(1 / p.asInstanceOf[Double])) // SanText+ only

val runStatistics = Seq((
  rowsIn, rowsOut,
  tokenCounts.tokens, tokenCounts.changed, 100.0 * tokenCounts.changed / math.max(1L, tokenCounts.tokens),
  tokenCounts.outOfVocabulary, maxWordsPerRow,
  mechanism.describe, mechanism.epsilon, epsilon0
)).toDF("rows_in", "rows_out", "tokens", "tokens_changed", "pct_tokens_changed", "tokens_oov",
  "max_words_per_row", "mechanism", "epsilon", "epsilon0")

display(runStatistics)

// COMMAND ----------

// MAGIC %sql
// MAGIC -- What was written: the parameters travel with the table.
// MAGIC SHOW TBLPROPERTIES support_tickets_sanitized

// COMMAND ----------

// MAGIC %md
// MAGIC ## The same step as a Spark ML pipeline stage
// MAGIC
// MAGIC `DpTextSanitizer` is a `Transformer` with the same settings as params. A saved pipeline holds the params
// MAGIC and the model's *path*, never the model's vectors and never the key: at transform time the key is found
// MAGIC as above (`spark.dptext.databricksSecret`, else `keyFile`, else the environment variable `keyEnv`). Same key,
// MAGIC same ids, same settings: the same text as the table just written.

// COMMAND ----------

import dev.dptext.spark.ml.DpTextSanitizer
import org.apache.spark.ml.{Pipeline, PipelineStage}

val dpStage = new DpTextSanitizer()
  .setInputCol("body").setOutputCol("body_dp").setIdCol("ticket_id")
  .setMechanism(mechanism.name).setModel(model)
mechanism.values.forEach((name, value) => dpStage.setSetting(name, value)) // ε, w, p: the values above

val tickets = spark.table("support_tickets")
val pipeline = new Pipeline().setStages(Array[PipelineStage](dpStage)).fit(tickets)
// pipeline.write.overwrite().save("dbfs:/Volumes/main/dptext/pipelines/support-tickets")

val differing = pipeline.transform(tickets).as("p")
  .join(spark.table("support_tickets_sanitized").as("t"), "ticket_id")
  .where(!($"p.body_dp" <=> $"t.body"))
  .count()
require(differing == 0, s"$differing rows differ between the pipeline and the table")

// COMMAND ----------

display(spark.table("support_tickets_sanitized").orderBy("ticket_id"))

// COMMAND ----------

// MAGIC %md
// MAGIC ## Next
// MAGIC
// MAGIC * Re-running this notebook with the same key gives the same table, row for row: rows are seeded by
// MAGIC   HMAC-SHA256(key, purpose ‖ ticket_id). A new key gives new noise: never publish two sanitizations of
// MAGIC   the same rows under different keys, since the losses add up.
// MAGIC * Scheduled runs: the JAR task `dev.dptext.job.DatabricksTask` and the job definition
// MAGIC   `conf/databricks-job.json` in the repository (docs/databricks.md).
// MAGIC * SQL only: `dptext-sql.sql`, with `dp_sanitize(body, ticket_id)`.
