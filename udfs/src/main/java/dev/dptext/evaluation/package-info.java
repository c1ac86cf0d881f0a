/**
 * The evaluations of privacy and utility: empirical privacy, privacy ratio, privacy statistics, downstream
 * utility, membership inference and the tuner, run through the same public API users run
 * ({@code dev.dptext.spark.DpText}).
 *
 * <p>May import every package of the library (it is the top layer); none imports it.
 */
package dev.dptext.evaluation;
