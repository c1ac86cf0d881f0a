/**
 * What every task runs, whichever way it reached the task: {@link dev.dptext.sanitizer.Sanitizer}, the
 * keyed sanitizer of one configuration (the text sanitizer and the row seeder: the only place ids meet
 * the key), and the token counts tasks report ({@link dev.dptext.sanitizer.TokenSink}, where they add
 * them; {@link dev.dptext.sanitizer.TokenTotals}, a run's sums).
 *
 * <p>Its own package because both ways of running it use it: the partitioned path
 * ({@code dev.dptext.classic.partitioned}) and the row functions of {@code dev.dptext.runtime}, which sits
 * above {@code classic}.
 *
 * <p>May import: {@code config}, the domain packages and {@code settings}.
 */
package dev.dptext.sanitizer;
