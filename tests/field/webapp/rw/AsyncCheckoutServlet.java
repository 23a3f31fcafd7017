package rw;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * GET /ci/checkout-async?id=N: the same checkout, run by the container's
 * executor after doGet returned (AsyncContext.start), as an asynchronous
 * servlet does its work.
 */
public class AsyncCheckoutServlet extends HttpServlet {
    private final Shop shop = new Shop();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
        String q = req.getParameter("id");
        int id = q == null ? 1 : Integer.parseInt(q);
        AsyncContext ctx = req.startAsync();
        ctx.start(() -> {
            try {
                resp.setContentType("text/plain");
                resp.getWriter().println(shop.checkout(id));
            } catch (IOException e) {
                resp.setStatus(500);
            }
            ctx.complete();
        });
    }
}
