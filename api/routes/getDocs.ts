import { join } from "node:path";
import { getAbsoluteFSPath } from "swagger-ui-dist";
import type { Route } from "./route";

/** The Swagger UI files the page loads, served from node_modules (no CDN). */
const ASSETS = new Set(["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-32x32.png"]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Token Swap Trading API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
      persistAuthorization: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });
  </script>
</body>
</html>
`;

/** GET /docs: an interactive reference of /openapi.json (Swagger UI, from the swagger-ui-dist package). */
export const getDocsRoute: Route = {
  method: "get",
  path: "/docs",
  handlers: () => [
    (_req, res) => {
      res.type("html").send(PAGE);
    },
  ],
};

/** GET /docs/{asset}: Swagger UI's own files, an allow-list served from node_modules. */
export const getDocsAssetRoute: Route = {
  method: "get",
  path: "/docs/:asset",
  handlers: () => {
    const root = getAbsoluteFSPath();
    return [
      (req, res, next) => {
        const asset = String(req.params.asset);
        if (!ASSETS.has(asset)) {
          next();
          return;
        }
        res.set("Cache-Control", "public, max-age=3600");
        res.sendFile(join(root, asset));
      },
    ];
  },
};
