/**
 * dptext's own JSON reader and string quoting ({@link dev.dptext.json.Json}): the model file's header and
 * the error catalogue are read with it, so that no JSON library of the host's classpath is needed.
 *
 * <p>May import: nothing of dptext. It is in the bottom layer with {@code dev.dptext.errors} (the build
 * rule: {@code PackageLayersTest}).
 */
package dev.dptext.json;
