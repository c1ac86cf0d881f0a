package dev.dptext.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The evaluation report's HTML page: sections of text, figures (PNG files beside the page), tables
 * and the exact commands that produced them. Self-contained (no script, no external style), so it
 * opens from a file system, an artifact store or a Databricks volume.
 */
public final class ReportPage {
  private final StringBuilder body = new StringBuilder();
  private final String title;

  public ReportPage(String title) {
    this.title = title;
  }

  public ReportPage heading(String text) {
    body.append("<h2>").append(escape(text)).append("</h2>\n");
    return this;
  }

  public ReportPage paragraph(String text) {
    body.append("<p>").append(escape(text)).append("</p>\n");
    return this;
  }

  /** A figure: the PNG's file name relative to the page, and its caption. */
  public ReportPage figure(String png, String caption) {
    body.append("<figure><img src=\"").append(escape(png)).append("\" alt=\"").append(escape(caption))
        .append("\"><figcaption>").append(escape(caption)).append("</figcaption></figure>\n");
    return this;
  }

  public ReportPage table(List<String> header, List<List<String>> rows) {
    body.append("<table>\n<tr>");
    header.forEach(h -> body.append("<th>").append(escape(h)).append("</th>"));
    body.append("</tr>\n");
    for (List<String> row : rows) {
      body.append("<tr>");
      row.forEach(c -> body.append("<td>").append(escape(c)).append("</td>"));
      body.append("</tr>\n");
    }
    body.append("</table>\n");
    return this;
  }

  /**
   * A command line that a POSIX shell reads back as {@code words}: each word that holds anything but
   * letters, digits and {@code _ . / : = , @ % + -} in single quotes (a single quote inside as {@code '\''}).
   */
  public static String shellCommand(List<String> words) {
    StringBuilder out = new StringBuilder();
    for (String w : words) {
      if (out.length() > 0) {
        out.append(' ');
      }
      out.append(!w.isEmpty() && w.matches("[A-Za-z0-9_./:=,@%+-]+") ? w : "'" + w.replace("'", "'\\''") + "'");
    }
    return out.toString();
  }

  /** A command, shown verbatim so it can be copied. */
  public ReportPage command(String text) {
    body.append("<pre><code>").append(escape(text)).append("</code></pre>\n");
    return this;
  }

  /** A link to a data file beside the page (CSV, JSON). */
  public ReportPage link(String file, String text) {
    body.append("<p><a href=\"").append(escape(file)).append("\">").append(escape(text)).append("</a></p>\n");
    return this;
  }

  public String html() {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
        + "</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;line-height:1.4}"
        + "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;"
        + "text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
        + "figure{margin:1em 0}img{max-width:100%}pre{background:#f6f6f6;padding:8px;overflow-x:auto}"
        + "</style></head>\n<body>\n<h1>" + escape(title) + "</h1>\n" + body + "</body></html>\n";
  }

  public void write(Path file) throws IOException {
    Files.writeString(file, html(), StandardCharsets.UTF_8);
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
