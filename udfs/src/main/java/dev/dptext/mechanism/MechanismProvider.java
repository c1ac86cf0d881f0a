package dev.dptext.mechanism;

/**
 * A mechanism from outside dptext's own list, found with {@link java.util.ServiceLoader}: a class
 * implementing this interface, with a public no-argument constructor, named on one line of
 * {@code META-INF/services/dev.dptext.mechanism.MechanismProvider} in its jar. Its definition then joins
 * {@link Mechanisms#ALL}, and every surface derived from the registry (settings, SQL help, ML Params, the
 * job's options, the Python package's registry) lists it as it lists the built-in ones.
 *
 * <ul>
 *   <li><b>Loaded once</b>, when {@link Mechanisms} is first used in a JVM, from the class loader that
 *       loaded dptext: the provider's jar goes where dptext's does (the same {@code --jars}, the same
 *       cluster library), on the driver and on every executor, so that both see the same registry.
 *   <li><b>Order</b>: the built-in mechanisms first, then provided ones sorted by name, so the registry's
 *       order does not depend on the order of the classpath.
 *   <li><b>Names</b> (and aliases) are unique: a provided mechanism that reuses a name is refused, with
 *       an error naming both claimants.
 * </ul>
 *
 * <p>{@link #definition()} runs while the registry itself is being built: it must not read
 * {@link Mechanisms} or {@code dev.dptext.settings.Settings}, which are not initialised yet. A parameter
 * shared with a built-in mechanism (ε above all) uses that mechanism's {@code Setting}, never a second
 * setting of the same name ({@link Mechanisms#parameters()} refuses that).
 */
public interface MechanismProvider {
  /** The mechanism's definition; called once. */
  MechanismDefinition definition();
}
