/**
 * What the evaluation commands ({@code evaluate utility}, {@code evaluate mia}, {@code tune},
 * {@code calibrate}, {@code privacy-stats}) share: the ε grids ({@link dev.dptext.job.evaluate.EpsilonGrid}),
 * the labelled table they read ({@link dev.dptext.job.evaluate.LabelledTable}) and the model as an
 * evaluation loads it ({@link dev.dptext.job.evaluate.EvaluationModels}).
 */
package dev.dptext.job.evaluate;
