package dev.dptext.job;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A notebook in Databricks source format, split into cells: the first line is
 * {@code <comment> Databricks notebook source}, cells are separated by
 * {@code <comment> COMMAND ----------} lines, and a cell in another language than the notebook's
 * prefixes every line with {@code <comment> MAGIC} and starts with {@code %md}, {@code %sql},
 * {@code %scala}… ({@code <comment>} is {@code --} for .sql, {@code //} for .scala, {@code #} for .py).
 * {@code DBTITLE} lines (cell titles) are dropped.
 */
record DatabricksNotebook(Path path, List<Cell> cells) {

  /** One cell; {@code number} counts from 1, as the Databricks UI does. */
  record Cell(int number, String language, String source) {}

  static DatabricksNotebook parse(Path path) {
    String name = path.getFileName().toString();
    String language = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    String comment = switch (language) {
      case "sql" -> "--";
      case "scala" -> "//";
      case "py", "r" -> "#";
      default -> throw new IllegalArgumentException(path + ": not a .sql, .scala, .py or .r notebook");
    };
    List<String> lines;
    try {
      lines = Files.readAllLines(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (lines.isEmpty() || !lines.get(0).strip().equals(comment + " Databricks notebook source")) {
      throw new IllegalArgumentException(
          path + ": the first line must be '" + comment + " Databricks notebook source' (Databricks source format)");
    }
    List<Cell> cells = new ArrayList<>();
    List<String> current = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.strip().equals(comment + " COMMAND ----------")) {
        addCell(cells, current, language, comment, path);
        current = new ArrayList<>();
      } else {
        current.add(line);
      }
    }
    addCell(cells, current, language, comment, path);
    return new DatabricksNotebook(path, List.copyOf(cells));
  }

  private static void addCell(List<Cell> cells, List<String> lines, String language, String comment, Path path) {
    List<String> body = new ArrayList<>();
    for (String line : lines) {
      if (!line.startsWith(comment + " DBTITLE ")) {
        body.add(line);
      }
    }
    while (!body.isEmpty() && body.get(0).isBlank()) {
      body.remove(0);
    }
    while (!body.isEmpty() && body.get(body.size() - 1).isBlank()) {
      body.remove(body.size() - 1);
    }
    if (body.isEmpty()) {
      return;
    }
    int number = cells.size() + 1;
    String magic = comment + " MAGIC";
    if (!body.get(0).startsWith(magic)) {
      cells.add(new Cell(number, language, String.join("\n", body)));
      return;
    }
    List<String> unwrapped = new ArrayList<>();
    for (String line : body) {
      if (!line.startsWith(magic)) {
        throw new IllegalArgumentException(
            path + " cell " + number + ": a MAGIC cell must prefix every line with '" + magic + "'");
      }
      unwrapped.add(line.length() > magic.length() ? line.substring(magic.length() + 1) : "");
    }
    String first = unwrapped.get(0).strip();
    if (!first.startsWith("%")) {
      throw new IllegalArgumentException(path + " cell " + number + ": a MAGIC cell must start with %md, %sql, %scala…");
    }
    int space = first.indexOf(' ');
    String cellLanguage = (space < 0 ? first : first.substring(0, space)).substring(1);
    unwrapped.set(0, space < 0 ? "" : first.substring(space + 1));
    cells.add(new Cell(number, cellLanguage, String.join("\n", unwrapped).strip()));
  }

  /**
   * The statements of a SQL cell, split at semicolons outside quotes ({@code '…'}, {@code "…"},
   * {@code `…`}, with backslash escapes) and comments (line comments and block comments); statements
   * that are only comments are dropped, as Databricks does.
   */
  static List<String> sqlStatements(String sql) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean hasCode = false;
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '-' && sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        end = end < 0 ? sql.length() : end;
        current.append(sql, i, end);
        i = end;
      } else if (c == '/' && sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        end = end < 0 ? sql.length() : end + 2;
        current.append(sql, i, end);
        i = end;
      } else if (c == '\'' || c == '"' || c == '`') {
        int j = i + 1;
        while (j < sql.length() && sql.charAt(j) != c) {
          j += sql.charAt(j) == '\\' && c != '`' ? 2 : 1;
        }
        int end = Math.min(j + 1, sql.length());
        current.append(sql, i, end);
        hasCode = true;
        i = end;
      } else if (c == ';') {
        if (hasCode) {
          statements.add(current.toString().strip());
        }
        current.setLength(0);
        hasCode = false;
        i++;
      } else {
        current.append(c);
        hasCode |= !Character.isWhitespace(c);
        i++;
      }
    }
    if (hasCode) {
      statements.add(current.toString().strip());
    }
    return statements;
  }
}
