/** Price entries as a table; each row's actions are given by the caller (edit/delete, or override). */
import type { ReactNode } from "react";
import type { ModelPrice } from "../api/types";
import { fmtTime } from "../format";
import { formatDetails } from "./rules";
import "./prices.css";

const usd = (n: number) => `$${n.toLocaleString("en-US", { maximumFractionDigits: 6 })}`;

export function PriceTable({
  label,
  prices,
  inEffectId,
  actions,
  expanded,
}: {
  label: string;
  prices: readonly ModelPrice[];
  /** The entry that prices the model typed in the filter (highlighted). */
  inEffectId?: string;
  actions: (p: ModelPrice) => ReactNode;
  /** A row replaced by something else (the inline editor), by price id. */
  expanded?: { id: string; node: ReactNode };
}) {
  return (
    <table className="data" aria-label={label}>
      <thead>
        <tr>
          <th>Model</th>
          <th>Match pattern</th>
          <th>Provider</th>
          <th>From</th>
          <th className="num">Input $/1M</th>
          <th className="num">Output $/1M</th>
          <th>By token type</th>
          <th>Actions</th>
        </tr>
      </thead>
      <tbody>
        {prices.map((p) =>
          expanded?.id === p.id ? (
            <tr key={p.id}>
              <td colSpan={8}>{expanded.node}</td>
            </tr>
          ) : (
            <tr key={p.id} className={p.id === inEffectId ? "price-in-effect" : undefined}>
              <td>
                {p.model_name}
                {p.updated_at ? <div className="muted">updated {fmtTime(p.updated_at)}</div> : null}
              </td>
              <td className="price-pattern">{p.match_pattern}</td>
              <td>{p.provider ?? <span className="muted">any</span>}</td>
              <td>{p.effective_from ? p.effective_from.slice(0, 10) : <span className="muted">always</span>}</td>
              <td className="num">{usd(p.input_per_million)}</td>
              <td className="num">{usd(p.output_per_million)}</td>
              <td className="price-details">
                {formatDetails(p.input_details_per_million) ? <div>in: {formatDetails(p.input_details_per_million)}</div> : null}
                {formatDetails(p.output_details_per_million) ? <div>out: {formatDetails(p.output_details_per_million)}</div> : null}
              </td>
              <td>{actions(p)}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
