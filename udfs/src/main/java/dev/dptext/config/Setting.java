package dev.dptext.config;

import java.io.Serializable;
import java.util.Optional;

/**
 * One setting of dptext, declared once with its name, type, default, documentation and check, in the
 * manner of Spark's and Delta's {@code buildConf(key).doc().checkValue().createWithDefault()}. Every
 * surface derives its spelling from {@link #name()}: the ML Param is {@code name}, the Spark conf key
 * {@code spark.dptext.name}, the command-line option {@code --kebab-name}, the mechanism string
 * {@code mechanism:name=value}.
 *
 * @param <T> the value's type
 */
public final class Setting<T> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The prefix of every dptext Spark conf key. */
  public static final String CONF_PREFIX = "spark.dptext.";

  private final String name;
  private final ValueType<T> type;
  private final T defaultValue;
  private final String defaultDoc;
  private final String doc;
  private final String symbol;
  private final Check<T> check;
  private final String hint;
  private final boolean secret;
  private final String label;

  private Setting(Builder b, ValueType<T> type, T defaultValue, Check<T> check) {
    this.name = b.name;
    this.type = type;
    this.doc = b.doc;
    this.symbol = b.symbol != null ? b.symbol : b.name;
    this.hint = b.hint;
    this.secret = b.secret;
    this.defaultDoc = b.defaultDoc;
    this.label = b.label;
    this.check = check;
    this.defaultValue = defaultValue == null ? null : check.require(name, defaultValue, hint);
  }

  /** Starts the declaration of the setting {@code name} (camelCase). */
  public static Builder define(String name) {
    return new Builder(name);
  }

  /** The name: the ML Param's name and the last part of the Spark conf key. */
  public String name() {
    return name;
  }

  /** {@code spark.dptext.}name. */
  public String confKey() {
    return CONF_PREFIX + name;
  }

  /** {@code --}name in kebab case ({@code vocabSize} → {@code --vocab-size}). */
  public String cliName() {
    StringBuilder s = new StringBuilder("--");
    for (char c : name.toCharArray()) {
      if (Character.isUpperCase(c)) {
        s.append('-').append(Character.toLowerCase(c));
      } else {
        s.append(c);
      }
    }
    return s.toString();
  }

  /** What the command line calls the value ({@code PATH}, {@code N}, {@code ε}). */
  public String label() {
    if (label != null) {
      return label;
    }
    if (!symbol.equals(name)) {
      return symbol;
    }
    return switch (type.kind()) {
      case INT -> "N";
      case DOUBLE -> "X";
      case DOUBLE_LIST -> "X[,X...]";
      case BOOLEAN -> "true|false";
      case STRING -> "NAME";
    };
  }

  /** How the value is written in formulas and descriptions, e.g. ε or λ. */
  public String symbol() {
    return symbol;
  }

  public ValueType<T> type() {
    return type;
  }

  public String doc() {
    return doc;
  }

  /** The fix suggested when a value fails the check (may be empty). */
  public String hint() {
    return hint;
  }

  /** What the check allows, in words: {@code "in (0, 1]"}. */
  public String expected() {
    return check.expected().equals(Check.ANY) ? type.expected() : check.expected();
  }

  /** The check as data for other languages ({@link Check#rule()}); empty when only Java can run it. */
  public Optional<java.util.Map<String, Object>> rule() {
    return check.rule();
  }

  /**
   * The secret key itself: read from the Spark conf only (where Spark redacts it), never a
   * command-line option nor an ML Param, never printed.
   */
  public boolean secret() {
    return secret;
  }

  public Optional<T> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /** The default as documentation shows it: the value, or what applies when there is none. */
  public String defaultText() {
    return defaultValue != null ? format(defaultValue) : defaultDoc;
  }

  /** Parses and checks a value written as text. */
  public T parse(String text) {
    return check(type.parse(name, text));
  }

  /** Converts and checks a typed value (or text). */
  public T coerce(Object value) {
    return check(type.coerce(name, value));
  }

  /** Checks a value with this setting's one message. */
  public T check(T value) {
    return check.require(name, value, hint);
  }

  public String format(T value) {
    return type.format(value);
  }

  @Override
  public String toString() {
    return name;
  }

  /** The declaration of a setting; {@code create…} ends it. */
  public static final class Builder {
    private final String name;
    private String doc = "";
    private String symbol;
    private String hint = "";
    private String defaultDoc = "none";
    private boolean secret;
    private String label;

    private Builder(String name) {
      this.name = name;
    }

    public Builder doc(String text) {
      this.doc = text;
      return this;
    }

    /** The symbol used in formulas ({@code ε}); default: the name. */
    public Builder symbol(String text) {
      this.symbol = text;
      return this;
    }

    /** What the command line calls the value, e.g. {@code PATH}; default: from the symbol or type. */
    public Builder label(String text) {
      this.label = text;
      return this;
    }

    /** The fix named when a value fails the check. */
    public Builder hint(String text) {
      this.hint = text;
      return this;
    }

    /** What applies when the setting has no default value, for the documentation. */
    public Builder withoutDefaultMeaning(String text) {
      this.defaultDoc = text;
      return this;
    }

    /** Marks the secret key: conf-only, never shown. */
    public Builder secret() {
      this.secret = true;
      return this;
    }

    public <T> Setting<T> createWithDefault(ValueType<T> type, Check<T> check, T defaultValue) {
      return new Setting<>(this, type, defaultValue, check);
    }

    public <T> Setting<T> createOptional(ValueType<T> type, Check<T> check) {
      return new Setting<>(this, type, null, check);
    }
  }
}
