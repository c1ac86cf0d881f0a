/**
 * The dptext job: its entry points and what every one of its packages shares.
 *
 * <p>{@link dev.dptext.job.DpTextJob} is the job's {@code main} (spark-submit's {@code --class},
 * {@code scripts/dptext}, the Python package); {@link dev.dptext.job.DatabricksTask} runs the same
 * commands as a Databricks JAR task. Shared by every package: the process exit codes
 * ({@link dev.dptext.job.ExitCode}) and the one-line failure that carries one
 * ({@link dev.dptext.job.JobException}), the job's session ({@link dev.dptext.job.JobSession}), its
 * version ({@link dev.dptext.job.Version}) and whether a value names a catalog table or a path
 * ({@link dev.dptext.job.TableName}).
 *
 * <p>The rest, by concern (each package owns one thing; only {@code command} knows picocli):
 *
 * <ul>
 *   <li>{@link dev.dptext.job.command}: the command line, one class per command, option groups as mixins;
 *   <li>{@link dev.dptext.job.sanitize}: a batch {@code sanitize} run;
 *   <li>{@link dev.dptext.job.stream}: {@code sanitize --stream};
 *   <li>{@link dev.dptext.job.read}: the input;
 *   <li>{@link dev.dptext.job.write}: the output;
 *   <li>{@link dev.dptext.job.inplace}: a run whose output is its input;
 *   <li>{@link dev.dptext.job.run}: what a run reports (its summary, its progress);
 *   <li>{@link dev.dptext.job.model}: the model a command loads or builds;
 *   <li>{@link dev.dptext.job.evaluate}: what the evaluation commands share;
 *   <li>{@link dev.dptext.report}: the evaluations' HTML reports.
 * </ul>
 */
package dev.dptext.job;
