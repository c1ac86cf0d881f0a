/**
 * dptext's error catalogue: every user-facing error message, named, in one file
 * ({@code dev/dptext/errors/error-classes.json}, read by {@link dev.dptext.errors.DpTextErrors}), and the
 * exception the library raises from it ({@link dev.dptext.errors.DpTextException}). The job, the Python
 * package and the generated page {@code docs/errors.md} read the same file.
 *
 * <p>May import: {@code dev.dptext.json} only. It is in the bottom layer, which every package may use (the
 * build rule: {@code PackageLayersTest}).
 */
package dev.dptext.errors;
