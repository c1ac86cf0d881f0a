/**
 * The job's command line (picocli), and only that: one class per command ({@code *Command}), option
 * groups as mixins ({@code *Options}, {@link dev.dptext.job.command.EvaluationGrid}), the options of the
 * settings table ({@link dev.dptext.job.command.SettingOptions}: mechanism, its parameters, model, key
 * source), {@code --config} files ({@link dev.dptext.job.command.ConfigFile}) and the list of commands
 * ({@link dev.dptext.job.command.Commands}).
 *
 * <p>A command holds its options and says what to do with them. A short run is written in the command
 * itself (the evaluation commands, {@code build-model}); {@code sanitize}'s is a package of its own
 * ({@link dev.dptext.job.sanitize}, {@link dev.dptext.job.stream}), which takes the options' values as a
 * {@link dev.dptext.job.sanitize.SanitizeRequest}. No package but this one (and the entry point) knows
 * picocli.
 */
package dev.dptext.job.command;
