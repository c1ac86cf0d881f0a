package dev.dptext.job.testing;

import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.DynamicTestInvocationContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Runs each {@code @BeforeAll}, {@code @BeforeEach}, test, {@code @AfterEach} and {@code @AfterAll} of a
 * class that is not a {@link ProcessLane} class holding {@link InJvmSpark}, so that a lane test's in-JVM
 * work waits for the test in progress, never sits inside it; and those of a lane class marked as the lane's,
 * where {@link InJvmSpark#hold} takes the lock. Every setting a test changes in the shared
 * session it changes back in the same method, so nothing a lane test sees depends on where between two
 * invocations it went. Failsafe registers it for every class (JUnit's extension auto-detection,
 * {@code META-INF/services}) together with JUnit's parallel execution.
 */
public final class InJvmSparkExtension implements InvocationInterceptor {
  @Override
  public void interceptBeforeAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
      ExtensionContext context) throws Throwable {
    held(invocation, context);
  }

  @Override
  public void interceptBeforeEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
      ExtensionContext context) throws Throwable {
    held(invocation, context);
  }

  @Override
  public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
      ExtensionContext context) throws Throwable {
    held(invocation, context);
  }

  @Override
  public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
      ExtensionContext context) throws Throwable {
    held(invocation, context);
  }

  @Override
  public <T> T interceptTestFactoryMethod(Invocation<T> invocation, ReflectiveInvocationContext<Method> method,
      ExtensionContext context) throws Throwable {
    if (inLane(context)) {
      Object[] made = new Object[1];
      InJvmSpark.inLane(() -> made[0] = invocation.proceed());
      @SuppressWarnings("unchecked")
      T factory = (T) made[0];
      return factory;
    }
    try (InJvmSpark.Held held = InJvmSpark.lock()) {
      return invocation.proceed();
    }
  }

  @Override
  public void interceptDynamicTest(Invocation<Void> invocation, DynamicTestInvocationContext dynamic,
      ExtensionContext context) throws Throwable {
    held(invocation, context);
  }

  @Override
  public void interceptAfterEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
      ExtensionContext context) throws Throwable {
    held(invocation, context);
  }

  @Override
  public void interceptAfterAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
      ExtensionContext context) throws Throwable {
    held(invocation, context);
  }

  private static void held(Invocation<Void> invocation, ExtensionContext context) throws Throwable {
    if (inLane(context)) {
      InJvmSpark.inLane(invocation::proceed);
      return;
    }
    try (InJvmSpark.Held held = InJvmSpark.lock()) {
      invocation.proceed();
    }
  }

  private static boolean inLane(ExtensionContext context) {
    return context.getTestClass().map(c -> AnnotationSupport.isAnnotated(c, ProcessLane.class)).orElse(false);
  }
}
