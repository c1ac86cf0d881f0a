/**
 * The plumbing between the public API and the tasks, on the driver (and the executors it prepares):
 *
 * <ul>
 *   <li>what a session holds: its {@code spark.dptext.*} settings ({@link dev.dptext.runtime.SessionConf}),
 *       a key set at start-up ({@link dev.dptext.runtime.SessionSecret}), the Hadoop configuration files
 *       are reached with ({@link dev.dptext.runtime.HadoopConf});
 *   <li>models: loading, hashing and saving them ({@link dev.dptext.runtime.ModelLoader}), the default
 *       model's file the Python package ships ({@link dev.dptext.runtime.DefaultModelFile}) and the machine's
 *       copy of it a driver reads instead of rebuilding it ({@link dev.dptext.runtime.DefaultModelCache});
 *   <li>how a task finds its sanitizer ({@link dev.dptext.runtime.SanitizerSource}): the driver's cache
 *       ({@link dev.dptext.runtime.SanitizerCache}) handing it out as a broadcast or, in local mode, by
 *       number ({@link dev.dptext.runtime.LocalSanitizers}), or a recipe each executor builds from the model's
 *       path ({@link dev.dptext.runtime.PathSanitizer});
 *   <li>the row functions the UDFs run ({@link dev.dptext.runtime.SanitizeFunction},
 *       {@link dev.dptext.runtime.CountingSanitizeFunction});
 *   <li>the Spark Connect route: the server's SQL function called by name
 *       ({@link dev.dptext.runtime.ServerSanitizer}, {@link dev.dptext.runtime.SqlFunctionNames}), or this
 *       program's UDF with its jar shipped to the server ({@link dev.dptext.runtime.ServerClasses}).
 * </ul>
 *
 * <p>May import: {@code config}, the domain packages, {@code settings}, {@code sanitizer} and
 * {@code classic} (the door it asks what kind of session it has, and for broadcasts); never {@code spark},
 * the public API above it (the names it needs from there are in {@code SqlFunctionNames}).
 *
 * <p>The job uses a few of its types, its face towards the job, listed with their reasons in spark-job's
 * {@code dev.dptext.arch.JobLayersTest.LIBRARY_FACE}: the rest is the library's inside.
 */
package dev.dptext.runtime;
