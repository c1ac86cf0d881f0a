# Databricks notebook source
# MAGIC %md
# MAGIC # dptext in Python: a sanitized Delta table with differential privacy
# MAGIC
# MAGIC This notebook rewrites the free-text column of a table with **differential privacy** (SanText+ over
# MAGIC word embeddings) into a Delta table, from Python: the column function `dp_sanitize`, the DataFrame API
# MAGIC `dptext.sanitize` and the ML stage `DpTextSanitizer`. Python only describes the work; the dptext jar
# MAGIC does it in the JVM. Run it top to bottom: the first cells create a few made-up support tickets.
# MAGIC
# MAGIC **Once per cluster, before running it**
# MAGIC
# MAGIC 1. **Compute**: classic compute on **Databricks Runtime 17.x** (Spark 4.0, Scala 2.13) in **dedicated**
# MAGIC    (single user) access mode. (Standard access mode and serverless: see the last cell.)
# MAGIC 2. **The jar and the package**: build them (`./mvnw -B -ntp -DskipTests -Ppython-wheel package`), upload
# MAGIC    `udfs/target/dptext-udfs-<version>.jar` and `python/target/dist/dptext-<version>-py3-none-any.whl` to a
# MAGIC    Unity Catalog volume, and install both on the cluster (*Compute → Libraries → Install new*).
# MAGIC 3. **The key**, in a secret scope (whoever holds it and a row's id can recompute that row's noise: treat it
# MAGIC    like a password and never type it into a notebook, nor read it into a Python variable):
# MAGIC    ```
# MAGIC    databricks secrets create-scope dptext
# MAGIC    databricks secrets put-secret dptext rng-key --string-value "$(openssl rand -hex 32)"
# MAGIC    ```
# MAGIC 4. **The cluster's Spark config** (*Compute → Advanced options → Spark*) names it:
# MAGIC    `spark.dptext.databricksSecret dptext/rng-key`. dptext reads the secret through `dbutils` in the JVM
# MAGIC    on the driver; the key never passes through Python, a query plan or the Spark conf.
# MAGIC
# MAGIC **Outside Databricks** it runs under plain PySpark (`pip install` the wheel, then
# MAGIC `DPTEXT_KEY=$(openssl rand -hex 32) python notebooks/dptext-python.py`): it starts a local session with
# MAGIC dptext and Delta (`dptext.configure(..., delta=True)`), shows tables with `show()` instead of `display`,
# MAGIC and skips the `%sql` cell.

# COMMAND ----------

import dptext
from dptext.functions import dp_sanitize

try:  # On Databricks the notebook has spark, dbutils and display.
    spark  # noqa: B018
except NameError:
    # Plain PySpark (python notebooks/dptext-python.py, or a Jupyter kernel): a local session with dptext's
    # jar and Delta's (bundled in the wheel); the key comes from the environment variable DPTEXT_KEY
    # (export DPTEXT_KEY=$(openssl rand -hex 32)), or name a file with key_file="/path/to/key".
    from pyspark.sql import SparkSession

    spark = dptext.configure(SparkSession.builder.appName("dptext-python-notebook"), delta=True).getOrCreate()
try:
    display  # noqa: B018
except NameError:

    def display(df):
        df.show(truncate=False)


# A jar installed on a running cluster is loaded after Spark started, so spark.sql.extensions cannot
# register dp_sanitize; this call does (once per session; nothing to do where the extension did it).
dptext.register(spark)

try:
    # The secret exists (its name only: the notebook never reads the key).
    assert any(s.key == "rng-key" for s in dbutils.secrets.list("dptext")), "create the secret first (cell 1)"
except NameError:
    pass  # not on Databricks: the key is the session's (DPTEXT_KEY, spark.dptext.keyFile)

# COMMAND ----------

# MAGIC %md
# MAGIC ## The guarantee, and what it does not cover
# MAGIC
# MAGIC Each mechanism's guarantee, as the dptext jar states it (the same text as `DESCRIBE FUNCTION EXTENDED
# MAGIC dp_sanitize`, `help(dp_sanitize)`, docs/mechanisms.md). **Not covered**, whatever the mechanism: the number of
# MAGIC tokens and the whitespace (copied from the input); the sum over tokens (the guarantee is per token); far-apart
# MAGIC words (metric DP protects a word against words *near* it); verbatim opt-ins (`oov = keep`,
# MAGIC `casePolicy = restore`); every other column (drop or pseudonymise identifiers yourself).

# COMMAND ----------

for m in dptext.mechanisms():
    print(f"{m.name}: {m.guarantee}\n")

# COMMAND ----------

# A few made-up support tickets, so that the notebook runs anywhere. Replace them by your table.
tickets = spark.createDataFrame(
    [
        (1001, "shipping", "My order arrived two days late and the box was damaged. I would like a refund."),
        (1002, "app", "The new update keeps crashing when I open the settings page on my phone."),
        (1003, "billing", "I was charged twice for the same subscription this month. Please fix this."),
        (1004, "account", "I forgot my password and the reset email never arrives. I checked the spam folder."),
        (1005, "shipping", "I moved to a new address in Chicago and my packages still go to the old apartment."),
        (1006, "account", "Please cancel my account and delete all of my personal data."),
        (1007, "app", ""),
        (1008, "billing", None),
    ],
    "ticket_id BIGINT, product STRING, body STRING",
)
tickets.createOrReplaceTempView("support_tickets")

# COMMAND ----------

# MAGIC %md
# MAGIC ## Settings and the column function
# MAGIC
# MAGIC `dp_sanitize` reads the session's `spark.dptext.*` settings when a query is analysed;
# MAGIC `dptext.set_options` sets them by their Python names (an unknown name is an error naming it; the key
# MAGIC itself is refused). `model = "default"` is the GloVe subset inside the jar; for real use, a model built
# MAGIC once with `dptext build-model` on a volume, e.g. `/Volumes/main/dptext/models/glove-6B-100d-74k.dptext`.
# MAGIC Rows are seeded by their id: the same key and ids give the same output on every re-run.

# COMMAND ----------

settings = {"mechanism": "santext+", "epsilon": 3.0, "w": 0.9, "p": 0.3, "model": "default"}
dptext.set_options(spark, **settings)

sanitized = tickets.select("ticket_id", "product", dp_sanitize("body", "ticket_id").alias("body"))
sanitized.write.format("delta").mode("overwrite").saveAsTable("support_tickets_sanitized")

# The parameters and the guarantee travel with the table.
properties = {f"dptext.{k}": str(v) for k, v in settings.items()}
properties["dptext.idColumn"] = "ticket_id"
properties["dptext.guarantee"] = dptext.guarantee(settings["mechanism"])
spark.sql(
    "ALTER TABLE support_tickets_sanitized SET TBLPROPERTIES ("
    + ", ".join(f"'{k}' = '{v.replace(chr(39), chr(39) * 2)}'" for k, v in properties.items())
    + ")"
)
display(spark.table("support_tickets_sanitized").orderBy("ticket_id"))

# COMMAND ----------

# MAGIC %md
# MAGIC ## Privacy statistics of the run
# MAGIC
# MAGIC Computed by comparing input and output, by whitespace-separated words (dptext's tokens are finer;
# MAGIC the job's run summary counts them exactly). `max_words_per_row` bounds from below how many tokens the
# MAGIC per-token guarantee composes over.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT
# MAGIC   (SELECT count(*) FROM support_tickets) AS rows_in,
# MAGIC   count(*) AS rows_out,
# MAGIC   sum(CASE WHEN i.body IS NOT NULL AND i.body <> o.body THEN 1 ELSE 0 END) AS rows_rewritten,
# MAGIC   max(size(split(trim(i.body), '\\s+'))) AS max_words_per_row
# MAGIC FROM support_tickets i JOIN support_tickets_sanitized o USING (ticket_id)

# COMMAND ----------

# MAGIC %md
# MAGIC ## The same step with the DataFrame API and as an ML pipeline stage
# MAGIC
# MAGIC `dptext.sanitize(df, input, output, id_col=…, **settings)` starts from the session's settings; the ML
# MAGIC stage `DpTextSanitizer` holds them as Params (a saved pipeline holds the Params and the model's *path*,
# MAGIC never the key; it loads in Scala and Java too). Same key, ids and settings: the same text as the table.

# COMMAND ----------

from pyspark.ml import Pipeline
from pyspark.sql import functions as F

table = spark.table("support_tickets_sanitized").select("ticket_id", F.col("body").alias("in_table"))

by_api = dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id")
stage = dptext.DpTextSanitizer(inputCol="body", outputCol="body_dp", idCol="ticket_id", **settings)
by_stage = Pipeline(stages=[stage]).fit(tickets).transform(tickets)
# Pipeline(...).fit(tickets).write().overwrite().save("/Volumes/main/dptext/pipelines/support-tickets")

for name, df in [("DataFrame API", by_api), ("ML stage", by_stage)]:
    differing = df.join(table, "ticket_id").where(~F.col("body_dp").eqNullSafe(F.col("in_table"))).count()
    assert differing == 0, f"{differing} rows differ between the {name} and the table"
print(stage.guarantee())

# COMMAND ----------

# MAGIC %md
# MAGIC ## Spark Connect, standard access mode and serverless
# MAGIC
# MAGIC The column function and `dptext.sanitize` also work from a Spark Connect client (`spark.remote(...)`),
# MAGIC provided the *server* was started with the dptext jar and
# MAGIC `spark.sql.extensions=dev.dptext.spark.DpTextExtensions`; `dptext.register` needs the JVM and is
# MAGIC refused there. Where user code cannot broadcast, set `modelDistribution = "path"`: each executor loads the
# MAGIC model from its path (a volume) once and checks its SHA-256 against the driver's. What this needs on
# MAGIC Databricks standard access mode, and why serverless notebooks cannot run dptext: docs/python-and-connect.md.
