/**
 * `POST /datasets/upload`, the SDK's `uploadCsv`: a multipart form with the CSV `file`, repeated
 * `input_keys` / `output_keys`, `name`, `description` and `data_type`; a new dataset with one
 * example per row. Reads its own body, so it is mounted before the JSON parser (like example uploads).
 */
import { randomUUID } from "node:crypto";
import type { Response } from "express";
import { principalOf } from "../../shared/auth/index.js";
import { BadRequestError } from "../../shared/errors.js";
import type { ApiRouter } from "../../shared/http.js";
import { CsvError, csvExamples } from "../datasets/csv.js";
import { readMultipartParts } from "../ingest/multipart.js";
import * as D from "./dataset-schemas.js";
import type { DatasetDeps } from "./dataset-routes.js";

const tenantOf = (res: Response) => principalOf(res).tenantId;
const DATA_TYPES = ["kv", "llm", "chat"];

export function datasetUploadRoutes(router: ApiRouter, deps: DatasetDeps, maxBodyBytes: number): void {
  router.add(
    { method: "post", path: "/datasets/upload", tag: "Datasets", summary: "Create a dataset from a CSV file (multipart: file, input_keys, output_keys, name, description, data_type); one example per row, cells as strings", response: D.Dataset, responses: { "200": "Created", "400": "Bad CSV or form", "409": "Name taken", "413": "Too large", "415": "Not multipart" } },
    async ({ req, res }) => {
      const tenant = tenantOf(res);
      const parts = await readMultipartParts(req, maxBodyBytes);
      const texts = (name: string) => parts.filter((p) => p.name === name).map((p) => p.data.toString("utf8"));
      const file = parts.find((p) => p.name === "file");
      if (!file) throw new BadRequestError("the form needs a part named file (the CSV)");
      const name = texts("name")[0]?.trim();
      if (!name) throw new BadRequestError("the form needs a name: Berth does not name datasets after files");
      const dataType = texts("data_type")[0] ?? "kv";
      if (!DATA_TYPES.includes(dataType)) throw new BadRequestError(`data_type must be one of ${DATA_TYPES.join(", ")}`);
      const inputKeys = texts("input_keys");
      if (!inputKeys.length) throw new BadRequestError("give at least one input_keys column");
      let rows;
      try {
        rows = csvExamples(file.data.toString("utf8"), inputKeys, texts("output_keys"));
      } catch (err) {
        if (err instanceof CsvError) throw new BadRequestError(`file: ${err.message}`);
        throw err;
      }
      const dataset = await deps.datasets.create(tenant, { name, description: texts("description")[0] ?? null, data_type: dataType, extra: { source: "csv" } });
      try {
        if (rows.length) await deps.examples.create(tenant, dataset.id, rows.map((r) => ({ id: randomUUID(), inputs: r.inputs, outputs: r.outputs })));
      } catch (err) {
        await deps.datasets.delete(tenant, dataset.id); // all or nothing
        throw err;
      }
      return deps.datasets.get(tenant, dataset.id);
    },
  );
}
