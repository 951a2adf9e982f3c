/**
 * Question types by rules a person can read (HCAT §6.2's second dimension): the first rule that
 * matches wins, in this order — comparison, list, numeric, yes/no, why, how, when, where, who, what,
 * other. Bounded: eleven values, a Prometheus label.
 * @module
 */

/** The question types. */
export const QUERY_TYPES = ['comparison', 'list', 'numeric', 'yes_no', 'why', 'how', 'when', 'where', 'who', 'what', 'other'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

const AUX = 'is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|might|must|shall';
/** Nouns that ask for a person (`which actor …`, `what singer …`). */
const PERSON = 'person|people|man|woman|actor|actress|singer|songwriter|musician|rapper|author|writer|poet|director|producer|executive|politician|president|member|player|coach|artist|composer|founder|narrator|performer|scientist|engineer|inventor|king|queen|prince|princess';
const RULES: ReadonlyArray<[QueryType, RegExp]> = [
  // A choice between named alternatives: "…, A or B?", "was A or B first", "Is A or B the largest …".
  ['comparison', new RegExp(`\\b(compare[ds]?|comparison|difference between|versus|vs\\.?)\\b|\\b(more|less|fewer|older|younger|larger|smaller|bigger|longer|shorter|higher|lower|better|worse|earlier|later|first)\\b[^?]*\\bor\\b|\\bor\\b[^?]*\\b(first|older|younger|more|larger|largest|bigger|biggest|longer|longest)\\b|^(which|who|what)\\b[^?]*,[^,?]+\\bor\\b[^,?]+\\??\\s*$|^(${AUX})\\b[^?]*\\bor\\b`, 'i')],
  ['list', /^(please )?(list|name (all|the|some|a few|\d+|two|three|four|five)|enumerate|give (me )?(a list|examples|some))\b|^what are (the|some|all)\b|^which (are|were) (the|all)\b/i],
  ['numeric', /\bhow (many|much|long|old|far|often|big|tall|large|high|deep|wide|fast)\b|\b(what|which) (is|was|are|were) the (number|amount|price|cost|population|percentage|rate|size|length|height|age|capacity|total)\b|\b(what|which) (percentage|percent|proportion|share|age|number)\b|\bat what age\b|\bthe population of\b/i],
  ['yes_no', new RegExp(`^(${AUX})\\b`, 'i')],
  ['why', /^why\b|\b(for what reason|what (caused|causes|is the reason))\b/i],
  ['how', /^how\b/i],
  ['when', /^when\b|\b(what|which) (year|date|day|month|decade|century|time|era|season)\b|\b(birth date|date of birth)\b|\bwhen\b[^?]*\?$/i],
  ['where', /^where\b|\b(what|which) (u\.?s\.? )?(city|country|state|place|location|town|continent|region|county|cunty|province|island|stadium|village)\b|\bwhere\b[^?]*\?$/i],
  ['who', new RegExp(`^(who|whom|whose)\\b|\\b(by|named after|of) who\\b|\\b(who|whom|whose)\\b[^?]*\\?\\s*$|\\b(which|what)\\s+([\\w'-]+\\s+){0,4}?(${PERSON})\\b|\\bwhat is (his|her|their) name\\b`, 'i')],
  ['what', /^(what|which)\b|\b(what|which)\b/i],
];

/** The type of a question. */
export function queryType(question: string): QueryType {
  const q = question.trim().replace(/\s+/g, ' ');
  for (const [type, re] of RULES) if (re.test(q)) return type;
  return 'other';
}
