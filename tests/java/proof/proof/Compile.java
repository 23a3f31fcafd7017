package proof;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Runs javac in-process and returns normally, so that every javac frame has
 * exited when the JVM ends (the javac launcher ends in System.exit, which
 * leaves its own frame open). Prints "javac exit N".
 */
public final class Compile {
    private Compile() {
    }

    public static void main(String[] args) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, args);
        System.out.println("javac exit " + rc);
    }
}
