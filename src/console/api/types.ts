/**
 * Names for the API shapes the console shows, all taken from the generated OpenAPI types: a
 * console component never declares a server shape by hand.
 */
import type { components as Cp } from "./control-plane.gen";
import type { components as Tr } from "./tracing.gen";

type C = Cp["schemas"];
type T = Tr["schemas"];

// control plane
export type Whoami = C["Whoami"];
export type Deployment = C["Deployment"];
export type Revision = C["Revision"];
export type LogPage = C["LogPage"];
export type LogEntry = C["LogEntry"];
export type DeploymentPatch = C["DeploymentPatchRequest"];
export type DeploymentList = C["DeploymentList"];
export type RevisionList = C["RevisionList"];
export type Tenant = C["Tenant"];
export type Listener = C["Listener"];
export type Integration = C["Integration"];
export type ApiKey = C["ApiKey"];

// tracing
export type Project = T["Project"];
export type ProjectStats = T["ProjectStats"];
export type RunSummary = T["RunSummary"];
export type RunDetail = T["RunDetail"];
export type TraceTree = T["TraceTree"];
export type TraceNode = T["TraceNode"];
export type TraceTotals = T["TraceTotals"];
export type StatsOverTime = T["StatsOverTime"];
export type ThreadSummary = T["ThreadSummary"];
export type ThreadTurns = T["ThreadTurns"];
export type ModelPrice = T["ModelPrice"];
export type NativeMessage = T["NativeMessage"];
export type NativeBlock = T["NativeBlock"];
export type RenderedMessages = T["RenderedMessages"];
export type ProjectList = T["ProjectList"];
export type RunList = T["RunList"];
export type ThreadList = T["ThreadList"];
export type ThreadTurn = T["ThreadTurn"];
export type StatsTotals = T["StatsTotals"];
export type StatsBucket = T["StatsBucket"];
export type ModelUsage = T["ModelUsage"];
export type TokenUsage = T["TokenUsage"];
export type RunCost = T["RunCost"];
export type Attachment = T["Attachment"];
export type ModelPriceList = T["ModelPriceList"];
export type ModelPriceCreate = T["ModelPriceCreateRequest"];
export type ModelPriceUpdate = T["ModelPriceUpdateRequest"];
