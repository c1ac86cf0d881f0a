/**
 * How a setting is declared: {@link dev.dptext.config.Setting} (name, type, default, doc, check, built
 * Delta-style with {@code Setting.define(...)...createWithDefault}), {@link dev.dptext.config.ValueType}
 * (how a value is parsed and written) and {@link dev.dptext.config.Check} (what a value must satisfy). The
 * mechanisms declare their parameters with it, and {@link dev.dptext.settings.Settings} declares the
 * rest.
 *
 * <p>May import: the base layer only ({@code dev.dptext.errors}, {@code dev.dptext.json}), below which nothing
 * is (the build rule: {@code PackageLayersTest}).
 */
package dev.dptext.config;
