/**
 * The evaluation commands' HTML reports: a page ({@link dev.dptext.report.ReportPage}), its PNG line charts
 * ({@link dev.dptext.report.LineChart}), and the sections of {@code evaluate utility}
 * ({@link dev.dptext.report.UtilityReport}) and {@code tune} ({@link dev.dptext.report.EmpiricalPrivacyReport}).
 */
package dev.dptext.report;
