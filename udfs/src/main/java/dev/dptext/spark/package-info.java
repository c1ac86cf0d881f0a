/**
 * What users call: {@link dev.dptext.spark.DpText} (the DataFrame API and {@code register}),
 * {@link dev.dptext.spark.DpTextExtensions} (named in {@code spark.sql.extensions}), the SQL functions
 * {@code dp_sanitize} and {@code dp_sanitize_counted} ({@link dev.dptext.spark.SqlFunctions}), and
 * {@link dev.dptext.spark.TokenAccumulators} (a run's token counts on a classic session); the ML stage is
 * in {@code dev.dptext.spark.ml}. The names of these classes are public: users write them in their
 * configuration, code and notebooks.
 *
 * <p>May import every package below it: {@code config}, the domain packages, {@code settings},
 * {@code sanitizer}, {@code classic} and {@code runtime}; never {@code dev.dptext.spark.ml} or
 * {@code evaluation}, which build on it.
 */
package dev.dptext.spark;
