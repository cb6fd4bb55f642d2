/**
 * Schemas of a graph from its TypeScript types: a compiler program over the graph file (with the
 * project's tsconfig when it has one), the type of the exported symbol unwrapped to the compiled
 * graph (factories, promises, uncompiled StateGraphs and `createAgent` results as the registry
 * accepts them), and the graph's type parameters read through the members LangGraph declares for
 * type inference: `~RunInput` (the state's update type), `~InputType`, `~OutputType`, and the
 * `context` option of `invoke` (the config/context type). Type errors in the project do not
 * matter: no diagnostics are computed, only the types asked for.
 */
import path from "node:path";
import ts from "typescript";
import { MESSAGE_DEFINITION, TypeToJsonSchema, type JsonSchema } from "./to-json-schema.js";

export interface TypeSchemas {
  state_schema: JsonSchema | null;
  input_schema: JsonSchema | null;
  output_schema: JsonSchema | null;
  config_schema: JsonSchema | null;
}

export interface Extracted {
  schemas: TypeSchemas;
  /** The project's own files the program read (not node_modules, not lib): what the cache depends on. */
  projectFiles: string[];
}

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

function compilerOptions(graphFile: string): ts.CompilerOptions {
  const base: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    esModuleInterop: true,
  };
  const configFile = ts.findConfigFile(path.dirname(graphFile), ts.sys.fileExists);
  let options = base;
  if (configFile) {
    const read = ts.readConfigFile(configFile, ts.sys.readFile);
    if (!read.error) options = { ...base, ...ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configFile)).options };
  }
  // Optional members are only visible with strict null checks; JS graphs need allowJs.
  return { ...options, strictNullChecks: true, allowJs: true, checkJs: false, noEmit: true, skipLibCheck: true, incremental: false, composite: false };
}

/** The compiled graph inside what a module exports (as the registry unwraps it at run time). */
function compiledGraphType(checker: ts.TypeChecker, exported: ts.Type): ts.Type | undefined {
  let t: ts.Type | undefined = exported;
  for (let step = 0; step < 6 && t; step++) {
    t = checker.getAwaitedType(t) ?? t;
    if (checker.getPropertyOfType(t, "~InputType")) return t;
    const graph = checker.getPropertyOfType(t, "graph");
    if (graph) {
      const inner = checker.getTypeOfSymbol(graph);
      if (checker.getPropertyOfType(inner, "~InputType")) return inner;
    }
    const compile = checker.getPropertyOfType(t, "compile");
    const next: ts.Signature | undefined = compile
      ? checker.getTypeOfSymbol(compile).getCallSignatures()[0]
      : t.getCallSignatures()[0]; // a factory: what it returns
    t = next ? checker.getReturnTypeOfSignature(next) : undefined;
  }
  return undefined;
}

function memberType(checker: ts.TypeChecker, t: ts.Type, name: string): ts.Type | undefined {
  const symbol = checker.getPropertyOfType(t, name);
  return symbol ? checker.getTypeOfSymbol(symbol) : undefined;
}

/** The `context` option's type of `invoke(input, options)`: the graph's config/context type. */
function contextType(checker: ts.TypeChecker, graph: ts.Type): ts.Type | undefined {
  const invoke = memberType(checker, graph, "invoke");
  const options = invoke?.getCallSignatures()[0]?.getParameters()[1];
  if (!options) return undefined;
  const optionsType = checker.getNonNullableType(checker.getTypeOfSymbol(options));
  const context = memberType(checker, optionsType, "context");
  return context ? checker.getNonNullableType(context) : undefined;
}

export interface GraphRef {
  file: string;
  exportName: string;
}

/**
 * One compiler program per tsconfig over the graph files given (building it — reading
 * @langchain/langgraph's and @langchain/core's declarations — is most of the cost, so graphs share
 * it); `extract` then reads one graph's schemas.
 */
export class TypeSchemaExtractor {
  private readonly programs = new Map<string, ts.Program>();

  constructor(private readonly files: string[]) {}

  private programFor(graphFile: string): ts.Program {
    const key = ts.findConfigFile(path.dirname(graphFile), ts.sys.fileExists) ?? "";
    let program = this.programs.get(key);
    if (!program) {
      const roots = this.files.filter((f) => (ts.findConfigFile(path.dirname(f), ts.sys.fileExists) ?? "") === key);
      program = ts.createProgram({ rootNames: roots.includes(graphFile) ? roots : [...roots, graphFile], options: compilerOptions(graphFile) });
      this.programs.set(key, program);
    }
    return program;
  }

  extract({ file: graphFile, exportName }: GraphRef): Extracted {
    const program = this.programFor(graphFile);
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(graphFile);
    if (!source) throw new Error(`TypeScript cannot read ${graphFile}`);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    const exportSymbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.getName() === exportName);
    if (!exportSymbol) throw new Error(`no export "${exportName}" in the types of ${graphFile}`);
    const target = exportSymbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exportSymbol) : exportSymbol;
    const graph = compiledGraphType(checker, checker.getTypeOfSymbol(target));
    if (!graph) throw new Error(`the type of export "${exportName}" is not a LangGraph graph`);

    const schemaOf = (t: ts.Type | undefined, { optionalMembers = false } = {}): JsonSchema | null => {
      if (!t || t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Never)) return null;
      const converter = new TypeToJsonSchema(checker);
      const schema: JsonSchema = { ...converter.convert(t) };
      // Configs are given in part (the platform derives them from the update type, all optional).
      if (optionalMembers) delete schema.required;
      if (converter.usedMessage) schema.definitions = { BaseMessage: MESSAGE_DEFINITION };
      schema.$schema = DRAFT_07;
      return schema;
    };
    const schemas: TypeSchemas = {
      state_schema: schemaOf(memberType(checker, graph, "~RunInput")),
      input_schema: schemaOf(memberType(checker, graph, "~InputType")),
      output_schema: schemaOf(memberType(checker, graph, "~OutputType")),
      config_schema: schemaOf(contextType(checker, graph), { optionalMembers: true }),
    };
    return { schemas, projectFiles: projectFilesOf(program) };
  }
}

/**
 * The project's own files in the program (not node_modules, not TypeScript's lib): what the types
 * may depend on. With graphs sharing a program this may name a little more than one graph needs,
 * which only makes a cached result expire more often.
 */
function projectFilesOf(program: ts.Program): string[] {
  return program
    .getSourceFiles()
    .filter((f) => !/[\\/]node_modules[\\/]/.test(f.fileName) && !program.isSourceFileDefaultLibrary(f))
    .map((f) => f.fileName);
}
