"""dptext's Python engine: the JVM's sanitizer, output for output, where no JVM of ours can run.

Databricks serverless notebooks, serverless jobs and SQL warehouses run Python and SQL only. This package
reads the model file the JVM builds (docs/model-format.md), derives each row's random stream from the key
and the row's id as the JVM does (HMAC-SHA256 → xoshiro256++), tokenizes with the JVM's rules and draws with
the JVM's samplers, so the same key, ids, settings and model give the same text. It needs NumPy only;
``dptext.engine.spark`` runs it in Spark as a pandas UDF. See docs/python-and-connect.md, "The Python engine".
"""
