/**
 * dptext's settings and the values of one sanitization.
 *
 * <ul>
 *   <li>{@link dev.dptext.settings.Settings}: the table of every setting, each declared once; the Spark
 *       conf keys, command-line options, ML Params, SQL help and the README's tables derive from it.
 *   <li>{@link dev.dptext.settings.DpTextOptions}: one sanitization's values, checked when set, and the key
 *       resolved from the sources they name ({@link dev.dptext.settings.DatabricksSecrets} reads one).
 *   <li>The choices of some settings: {@link dev.dptext.settings.IdMode},
 *       {@link dev.dptext.settings.ModelDistribution}, {@link dev.dptext.settings.ModelLayout}.
 *   <li>{@link dev.dptext.settings.ModelCache}: the one setting of the machine rather than of a sanitization,
 *       where a driver keeps the default model it built.
 *   <li>{@link dev.dptext.settings.GeneratedBlocks}: the documents' blocks generated from the tables.
 * </ul>
 *
 * Why not in {@code dev.dptext.config}: the table includes the mechanisms' parameters
 * ({@code dev.dptext.mechanism.Mechanisms}), and the mechanisms declare them with {@code config}.
 *
 * <p>May import: {@code config} and the domain packages ({@code random}, {@code embedding}, {@code knn},
 * {@code text}, {@code mechanism}, {@code model}). Nothing here needs a Spark session.
 */
package dev.dptext.settings;
