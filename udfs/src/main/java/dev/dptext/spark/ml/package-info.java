/**
 * dptext as a Spark ML pipeline stage ({@link dev.dptext.spark.ml.DpTextSanitizer}: saved pipelines
 * name it, so its name is public), and the registry the Python package is generated from
 * ({@link dev.dptext.spark.ml.RegistryJson}: mechanisms, settings and this stage's Params as JSON; here
 * because it reads the stage's Params).
 *
 * <p>May import {@code dev.dptext.spark} and everything below it.
 */
package dev.dptext.spark.ml;
