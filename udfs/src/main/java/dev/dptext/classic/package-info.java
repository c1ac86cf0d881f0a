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
 *
 * <p>The job uses a few of its types, its face towards the job, listed with their reasons in spark-job's
 * {@code dev.dptext.arch.JobLayersTest.LIBRARY_FACE}: the rest is the library's inside.
 */
package dev.dptext.classic;
