package rw;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** GET /ci/checkout?id=N: one checkout. */
public class CheckoutServlet extends HttpServlet {
    private final Shop shop = new Shop();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String q = req.getParameter("id");
        int id = q == null ? 1 : Integer.parseInt(q);
        resp.setContentType("text/plain");
        resp.getWriter().println(shop.checkout(id));
    }
}
