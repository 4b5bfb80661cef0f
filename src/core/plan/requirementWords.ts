/**
 * The words a plan or a test written in another language cites requirements with, as a task list's
 * trailer writes them (`_Требования: 1.1, 2.2_`, `_要件: 2.3_`, `_需求：1.1_`): capitalized, where
 * English's is read in any case. Those of the languages such plans are written in: Russian,
 * Ukrainian, Japanese, Chinese (one spelling, simplified and traditional), Korean, Spanish and
 * Portuguese, Italian, French, German, Polish, Turkish and Vietnamese. A fixed list, not any
 * `_Word: 1.2_` (`_Priority: 1_` cites none). A pattern's text.
 */
export const LOCALIZED_FORMS =
  'Требовани[ея]|Вимог[аи]|要件|需求|요구 ?사항|Requisit(?:os?|i)|Exigences?|Anforderung(?:en)?|Wymagani[ea]|Gereksinim(?:ler)?|Yêu cầu';
