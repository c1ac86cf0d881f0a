/**
 * The dptext job's entry points: {@link dev.dptext.job.DpTextJob} is its {@code main} (spark-submit's
 * {@code --class}, {@code scripts/dptext}, the Python package); {@link dev.dptext.job.DatabricksTask} runs
 * the same commands as a Databricks JAR task. They use only {@link dev.dptext.job.command} and
 * {@link dev.dptext.job.base}.
 *
 * <p>The rest, by concern (each package owns one thing; only {@code command} knows picocli's options),
 * layered without a cycle ({@code dev.dptext.arch.JobLayersTest} says which may use which):
 *
 * <ul>
 *   <li>{@link dev.dptext.job.base}: what every package shares (exit codes, the failure that carries one,
 *       the session, the version, table names);
 *   <li>{@link dev.dptext.job.command}: the command line, one class per command, option groups as mixins;
 *   <li>{@link dev.dptext.job.sanitize}: a batch {@code sanitize} run;
 *   <li>{@link dev.dptext.job.stream}: {@code sanitize --stream};
 *   <li>{@link dev.dptext.job.read}: the input;
 *   <li>{@link dev.dptext.job.write}: the output;
 *   <li>{@link dev.dptext.job.inplace}: a run whose output is its input;
 *   <li>{@link dev.dptext.job.ledger}: the privacy ledger;
 *   <li>{@link dev.dptext.job.hadoop}: the only classes naming Hadoop's types;
 *   <li>{@link dev.dptext.job.run}: what a run reports (its summary, its progress);
 *   <li>{@link dev.dptext.job.model}: the model a command loads or builds;
 *   <li>{@link dev.dptext.job.evaluate}: what the evaluation commands share;
 *   <li>{@link dev.dptext.report}: the evaluations' HTML reports.
 * </ul>
 */
package dev.dptext.job;
