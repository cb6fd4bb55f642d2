/**
 * The model price table the tracing facility costs LLM runs with: the tenant's own entries
 * (editable in place, deletable) and the defaults shipped with Berth (read-only; "Override" starts
 * a tenant entry from one). The filter doubles as a tester: typing a model name highlights the
 * entry that prices it.
 */
import { useMemo, useRef, useState } from "react";
import type { ModelPrice } from "../api/types";
import { ConfirmButton, ErrorBox, Loading } from "../components/common";
import { useCreatePrice, useDeletePrice, usePrices, useUpdatePrice } from "../prices/api";
import { PriceEditor } from "../prices/PriceEditor";
import { PriceTable } from "../prices/PriceTable";
import { changedFields, emptyForm, filterPrices, formFrom, formToBody, priceInEffect, splitPrices, type PriceForm } from "../prices/rules";
import "../prices/prices.css";

const DEFAULTS_PAGE = 100;

export default function Prices() {
  const prices = usePrices();
  const create = useCreatePrice();
  const update = useUpdatePrice();
  const remove = useDeletePrice();
  const [filter, setFilter] = useState("");
  const [adding, setAdding] = useState<{ form: PriceForm; key: number } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [shownDefaults, setShownDefaults] = useState(DEFAULTS_PAGE);
  const [notice, setNotice] = useState<string>();
  const addRef = useRef<HTMLDivElement>(null);

  const { tenant, defaults } = useMemo(() => splitPrices(prices.data ?? []), [prices.data]);
  const shownTenant = useMemo(() => filterPrices(tenant, filter), [tenant, filter]);
  const shownDefaultsAll = useMemo(() => filterPrices(defaults, filter), [defaults, filter]);
  const inEffect = useMemo(() => priceInEffect(tenant, defaults, filter), [tenant, defaults, filter]);

  const startAdd = (form: PriceForm) => {
    create.reset();
    setNotice(undefined);
    setAdding({ form, key: Date.now() });
    // the form is above the tables: bring it into view when "Override" was pressed far below
    requestAnimationFrame(() => addRef.current?.scrollIntoView?.({ block: "nearest" }));
  };

  if (prices.isPending) return <Loading what="the price table" />;
  if (prices.error) return <ErrorBox error={prices.error} title="Could not read the price table" />;

  return (
    <section aria-labelledby="prices-title">
      <h1 id="prices-title">Model prices</h1>
      <p className="muted">
        LLM runs are costed with this table, in USD per million tokens. Your entries win over the defaults for every model they match; the
        defaults come with Berth. A new or changed price applies to runs ingested from then on.
      </p>
      <div className="toolbar">
        <label>
          Filter
          <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="model, provider, pattern, or a model name to price" aria-label="Filter prices" className="price-filter" />
        </label>
        <button type="button" className="primary" onClick={() => startAdd(emptyForm())}>
          Add price
        </button>
        {notice ? (
          <span className="result-ok" role="status">
            {notice}
          </span>
        ) : null}
      </div>
      {filter.trim() ? (
        <p className="price-applies" role="status">
          {inEffect ? (
            <>
              A model named <code>{filter.trim()}</code> is priced by <strong>{inEffect.model_name}</strong> ({inEffect.source === "tenant" ? "your entry" : "default"}).
            </>
          ) : (
            <>
              No entry prices a model named <code>{filter.trim()}</code>: its runs get no cost.
            </>
          )}
        </p>
      ) : null}
      <div ref={addRef}>
        {adding ? (
          <PriceEditor
            key={adding.key}
            title="New price"
            submitLabel="Add price"
            initial={adding.form}
            busy={create.isPending}
            apiError={create.error}
            onCancel={() => setAdding(null)}
            onSubmit={(body) =>
              create.mutate(body, {
                onSuccess: (p) => {
                  setAdding(null);
                  setNotice(`Added ${p.model_name}.`);
                },
              })
            }
          />
        ) : null}
      </div>

      <h2>Your prices ({tenant.length})</h2>
      {tenant.length === 0 ? (
        <p className="empty">None yet: every model is priced by the defaults below. Add a price, or override a default.</p>
      ) : shownTenant.length === 0 ? (
        <p className="empty">None of your prices match the filter.</p>
      ) : (
        <PriceTable
          label="Your prices"
          prices={shownTenant}
          inEffectId={inEffect?.id}
          expanded={editing ? { id: editing, node: inlineEdit(tenant.find((p) => p.id === editing)) } : undefined}
          actions={(p) => (
            <span className="confirm">
              <button
                type="button"
                onClick={() => {
                  update.reset();
                  setEditing(p.id);
                }}
              >
                Edit
              </button>
              <ConfirmButton
                label="Delete"
                danger
                question={<>Delete the price of {p.model_name}? Models it matched fall back to the defaults.</>}
                action={async () => {
                  await remove.mutateAsync(p.id);
                  return `Deleted ${p.model_name}`;
                }}
              />
            </span>
          )}
        />
      )}

      <h2>Defaults ({defaults.length})</h2>
      {shownDefaultsAll.length === 0 ? (
        <p className="empty">No default matches the filter.</p>
      ) : (
        <>
          <PriceTable
            label="Default prices"
            prices={shownDefaultsAll.slice(0, shownDefaults)}
            inEffectId={inEffect?.id}
            actions={(p: ModelPrice) => (
              <button type="button" onClick={() => startAdd({ ...formFrom(p), effective_from: "" })} aria-label={`Override ${p.model_name}`}>
                Override
              </button>
            )}
          />
          {shownDefaultsAll.length > shownDefaults ? (
            <div className="pager">
              <span className="muted">
                Showing {shownDefaults} of {shownDefaultsAll.length}.
              </span>
              <button type="button" onClick={() => setShownDefaults((n) => n + DEFAULTS_PAGE * 5)}>
                Show more
              </button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );

  // a render helper, not a component: a component declared in here would be a new type on every
  // render and lose what was typed
  function inlineEdit(price: ModelPrice | undefined) {
    if (!price) return null;
    const before = formToBody(formFrom(price));
    return (
      <PriceEditor
        key={price.id}
        title={`Edit ${price.model_name}`}
        submitLabel="Save"
        initial={formFrom(price)}
        busy={update.isPending}
        apiError={update.error}
        onCancel={() => setEditing(null)}
        onSubmit={(body) => {
          const diff = before.ok ? changedFields(before.body, body) : body;
          if (Object.keys(diff).length === 0) return setEditing(null);
          update.mutate(
            { id: price.id, body: diff },
            {
              onSuccess: (p) => {
                setEditing(null);
                setNotice(`Saved ${p.model_name}.`);
              },
            },
          );
        }}
      />
    );
  }
}
