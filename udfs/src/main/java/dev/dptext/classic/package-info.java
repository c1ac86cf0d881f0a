/**
 * The only code that needs a classic Spark session: {@link dev.dptext.classic.Classic}, the one door to
 * its {@code SparkContext} (which fails clearly on Spark Connect, naming the way out), broadcasts
 * ({@link dev.dptext.classic.BroadcastValue}, Java-serialized through
 * {@link dev.dptext.classic.JavaSerialized}), accumulators ({@link dev.dptext.classic.LongCounter},
 * {@link dev.dptext.classic.RowCounter}), what the evaluations take from a classic session, private-corpus
 * frequencies, and the partitioned model path ({@code dev.dptext.classic.partitioned}). A build rule
 * ({@code dev.dptext.arch.ClassicOnlyRuleTest} in spark-job) keeps every other package portable.
 *
 * <p>May import: {@code config}, the domain packages, {@code settings} and {@code sanitizer}; never
 * {@code runtime}, {@code spark} or {@code evaluation}, which ask it.
 */
package dev.dptext.classic;
